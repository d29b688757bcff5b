import { lineNetCents } from './money.js';

/**
 * Tracked time as invoice quantities: minutes / 60 rounded half up to four decimals (the
 * decimals an invoice quantity has), as a decimal string ("1.5", "0.3333", "0.6667", "0"),
 * and what they are worth at a rate of cents an hour by the invoice line rule. Shared by
 * billing (which prices efforts) and the invoice PDF (which prints their timesheet).
 */
export function hoursOf(minutes: number): string {
  // minutes / 60 × 10^4 = minutes × 500 / 3: exact integers far beyond any tracked time.
  const n = minutes * 500;
  const units = Math.floor(n / 3) + (n % 3 >= 2 ? 1 : 0);
  const whole = Math.floor(units / 10_000);
  const frac = String(units % 10_000)
    .padStart(4, '0')
    .replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

/** What `minutes` at `rate` cents an hour are worth, in cents (hours × rate, half away from zero). */
export const minutesAmount = (minutes: number, rate: number): number => lineNetCents(hoursOf(minutes), rate);
