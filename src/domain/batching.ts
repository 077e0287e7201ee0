/**
 * Group commit: work submitted under a key runs in batches, one batch per key at a time; what arrives meanwhile goes
 * into the next (up to `max`, only items `fits` accepts), so a burst costs one statement per key instead of a queue.
 */
// A batch not finished after `timeoutMs` fails its items (BatchTimeoutError) and the key moves on; the work may still
// complete, so callers must be able to retry (a bank notification can: its id makes it idempotent).
export class KeyedBatcher<I, R> {
  private readonly waiting = new Map<string, { item: I; resolve: (r: R) => void; reject: (e: unknown) => void }[]>();
  private readonly running = new Set<string>();

  constructor(
    /** Runs one batch; returns one settled result per item, in order (a rejected item fails only its own caller). */
    private readonly run: (key: string, items: I[]) => Promise<PromiseSettledResult<R>[]>,
    private readonly opts: { max: number; timeoutMs: number; fits?: (batch: readonly I[], item: I) => boolean },
  ) {}

  submit(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let queue = this.waiting.get(key);
      if (!queue) this.waiting.set(key, (queue = []));
      queue.push({ item, resolve, reject });
      if (!this.running.has(key)) {
        this.drain(key).catch((e) => {
          // Not expected (every batch settles its items): fail whatever still waits rather than leave it hanging.
          for (const w of this.waiting.get(key)?.splice(0) ?? []) w.reject(e);
        });
      }
    });
  }

  private fits(items: readonly I[], item: I): boolean {
    if (items.length === 0 || !this.opts.fits) return true;
    try {
      return this.opts.fits(items, item);
    } catch {
      return false; // it runs in a batch of its own
    }
  }

  private async drain(key: string): Promise<void> {
    this.running.add(key);
    try {
      for (;;) {
        const queue = this.waiting.get(key);
        if (!queue || queue.length === 0) break;
        const batch: typeof queue = [];
        const items: I[] = [];
        for (let i = 0; i < queue.length && batch.length < this.opts.max; ) {
          if (!this.fits(items, queue[i].item)) {
            i++;
            continue;
          }
          const [next] = queue.splice(i, 1);
          batch.push(next);
          items.push(next.item);
        }
        let results: PromiseSettledResult<R>[];
        let timer: NodeJS.Timeout | undefined;
        try {
          const timedOut = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new BatchTimeoutError(this.opts.timeoutMs)), this.opts.timeoutMs);
          });
          results = await Promise.race([this.run(key, items), timedOut]);
        } catch (e) {
          results = items.map(() => ({ status: 'rejected', reason: e }));
        } finally {
          clearTimeout(timer);
        }
        batch.forEach((b, i) => {
          const r = results[i];
          if (r?.status === 'fulfilled') b.resolve(r.value);
          else b.reject(r ? r.reason : new Error('batch returned no result for an item'));
        });
      }
    } finally {
      this.running.delete(key);
      if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
    }
  }
}

/** A batch that did not finish in time (its work may still complete). Its message names it as a timeout. */
export class BatchTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`batch did not finish within ${ms} ms (timeout)`);
  }
}
