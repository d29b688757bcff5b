/**
 * The time sign-in code reads (sessions, invitations, throttling): tests move it forward to
 * see a window end or a link expire without waiting.
 */
export const clock = { now: (): number => Date.now() };

export const isoAt = (ms: number): string => new Date(ms).toISOString();
export const nowIsoAt = (): string => isoAt(clock.now());
