/** Current time as stored and returned: RFC 3339, UTC, millisecond precision. */
export const nowIso = (): string => new Date().toISOString();

/** Normalises any RFC 3339 input to the stored form, so text comparison orders correctly. */
export const toIso = (value: string): string => new Date(value).toISOString();

export const todayIso = (): string => new Date().toISOString().slice(0, 10);
