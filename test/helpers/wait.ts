/** Polling for what the service does after it answers (workers, agency results, deliveries). */

/** Calls `fn` until `ok` holds for its value or `ms` pass; returns the last value (the test asserts on it). */
export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 30));
  }
}
