/**
 * Polling for what the service does after it answers (workers, agency results, deliveries, a process coming up): the
 * one loop the tests wait with. "Nothing else arrives" is not a wait: check it with a later marker event instead.
 */

/** Calls `fn` every `everyMs` until `ok` holds for its value or `ms` pass; returns the last value (the test asserts on it). */
export async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, ms = 15_000, everyMs = 30): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Calls `fn` until it returns something truthy, and returns that; a throw counts as "not yet". After `ms` it throws,
 * naming `what` and the last error.
 */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 30_000, everyMs = 100): Promise<T> {
  let last: unknown;
  const attempt = async () => {
    try {
      return await fn();
    } catch (e) {
      last = e;
      return undefined;
    }
  };
  const v = await until(attempt, Boolean, ms, everyMs);
  if (!v) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
  return v;
}
