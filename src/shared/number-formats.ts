/**
 * Document number formats: pure rules shared by the account profile (which stores and checks
 * the formats) and invoicing (which numbers documents with them), so neither module has to
 * reach into the other for them.
 */

/** Credits have their own number sequence; every other document uses the invoice sequence. */
export type NumberKind = 'invoice' | 'credit';

export const DEFAULT_NUMBER_FORMATS: Record<NumberKind, string> = {
  invoice: 'RE-{YYYY}-{NNNNN}',
  credit: 'GS-{YYYY}-{NNNNN}',
};

/** The tokens a format knows: {YYYY}, {YY} and one counter {N…}. */
export const NUMBER_FORMAT_TOKENS = /\{(YYYY|YY|N+)\}/g;

/** Why a number format is unusable, or null: it needs exactly one {N…} counter token. */
export function numberFormatError(format: string): string | null {
  if (format.length === 0 || format.length > 64) return 'must be 1 to 64 characters';
  const counters = format.match(/\{N+\}/g) ?? [];
  if (counters.length !== 1) return 'must contain exactly one counter token such as {NNNNN}';
  if (/[{}]/.test(format.replace(NUMBER_FORMAT_TOKENS, '')))
    return 'knows only the tokens {YYYY}, {YY} and {N…}';
  return null;
}
