/**
 * Hands a promise's outcome to callback-style code outside the promise chain. Inside `.then`,
 * an exception thrown by the callback would become an unhandled rejection reported far from
 * its cause; on the next tick it is an ordinary exception of the callback, as callback APIs
 * (Fastify hooks, http lookups) expect.
 */
export function settleOutside<T>(
  promise: Promise<T>,
  onValue: (value: T) => void,
  onError: (err: Error) => void,
): void {
  promise.then(
    (value) => process.nextTick(onValue, value),
    (err: Error) => process.nextTick(onError, err),
  );
}
