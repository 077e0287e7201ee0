/**
 * The subscription feed (src/events/ordered-feed.ts) over a fake source: the catch-up in pages, the live events in
 * sequence order, each event once, whatever order and however often the bus brings them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../src/events/event-bus.ts';
import { feedSettings, openOrderedFeed, type FeedSource } from '../../src/events/ordered-feed.ts';

const ev = (sequence: number, type = 'invoice.updated'): BusEvent => ({
  eventId: `evt_${sequence}`,
  workspaceId: 'wsp_1',
  sequence: String(sequence),
  type,
  invoiceId: 'ivc_1',
  cashReceiptId: null,
  bankAccountIds: [],
  createdAt: new Date(0).toISOString(),
});

/** A workspace whose stored events are `stored` (the last sequence: the highest), and a bus to publish on. */
function fakeSource(stored: BusEvent[], opts: { only?: (e: BusEvent) => boolean; failReadsAfter?: number } = {}) {
  const listeners = new Set<(e: BusEvent) => void>();
  const reads: [bigint, bigint, number][] = [];
  const source: FeedSource = {
    async listen(onEvent) {
      listeners.add(onEvent);
      return () => listeners.delete(onEvent);
    },
    lastSequence: async () => stored.reduce((m, e) => (BigInt(e.sequence) > m ? BigInt(e.sequence) : m), 0n),
    isStored: async (s) => stored.some((e) => BigInt(e.sequence) === s),
    async read(after, upTo, limit) {
      reads.push([after, upTo, limit]);
      if (opts.failReadsAfter !== undefined && reads.length > opts.failReadsAfter) throw new Error('database gone');
      return stored
        .filter((e) => BigInt(e.sequence) > after && BigInt(e.sequence) <= upTo && (opts.only?.(e) ?? true))
        .sort((a, b) => Number(a.sequence) - Number(b.sequence))
        .slice(0, limit);
    },
  };
  return {
    source,
    reads,
    listeners,
    /** Commits (stores) and publishes. */
    commit(e: BusEvent, publish = true) {
      stored.push(e);
      if (publish) for (const l of listeners) l(e);
    },
    publish(e: BusEvent) {
      for (const l of listeners) l(e);
    },
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function take(feed: AsyncIterator<unknown>, n: number): Promise<unknown[]> {
  const out: unknown[] = [];
  while (out.length < n) {
    const r = await feed.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

const saved = { ...feedSettings };
afterEach(() => Object.assign(feedSettings, saved));

const open = (source: FeedSource, since: bigint | null, map: (e: BusEvent) => unknown = (e) => Number(e.sequence)) =>
  openOrderedFeed(source, { since, check: () => {}, map, failed: (e) => ({ failed: (e as Error).message }) });

describe('ordered feed', () => {
  it('catches up in pages of feedSettings.pageSize, then goes live; what was committed meanwhile comes once, in order', async () => {
    feedSettings.pageSize = 4;
    const f = fakeSource(range(1, 10).map((s) => ev(s)));
    const feed = await open(f.source, 2n);
    // Committed and published after the feed listened: 11 while it reads, 12 later; 9 and 10 are published again.
    f.commit(ev(11));
    f.publish(ev(9));
    expect(await take(feed, 5)).toEqual([3, 4, 5, 6, 7]);
    f.publish(ev(10));
    f.commit(ev(12));
    expect(await take(feed, 5)).toEqual([8, 9, 10, 11, 12]);
    expect(f.reads).toEqual([
      [2n, 10n, 4],
      [6n, 10n, 4],
    ]);
    await feed.return!();
    expect(f.listeners.size).toBe(0);
  });

  it('a filtered read shorter than a page ends the catch-up at the last sequence, and live events the filter drops still move the cursor', async () => {
    feedSettings.pageSize = 2;
    const paid = (e: BusEvent) => e.type === 'invoice.paid';
    const stored = range(1, 9).map((s) => ev(s, s % 3 === 0 ? 'invoice.paid' : 'invoice.updated'));
    const f = fakeSource(stored, { only: paid });
    const feed = await open(f.source, 0n, (e) => (paid(e) ? Number(e.sequence) : null));
    f.commit(ev(10));
    f.commit(ev(11, 'invoice.paid'));
    expect(await take(feed, 4)).toEqual([3, 6, 9, 11]);
    expect(f.reads).toEqual([
      [0n, 9n, 2],
      [6n, 9n, 2],
    ]);
  });

  it('without sinceSequence: only what is committed from now on', async () => {
    const f = fakeSource(range(1, 5).map((s) => ev(s)));
    const feed = await open(f.source, null);
    f.publish(ev(5)); // committed before: a late repeat
    f.commit(ev(6));
    expect(await take(feed, 1)).toEqual([6]);
    expect(f.reads).toEqual([]);
  });

  it('a live event ahead of the next one waits feedSettings.gapWaitMs for it; one that never comes is read from the database', async () => {
    feedSettings.gapWaitMs = 50;
    const f = fakeSource(range(1, 3).map((s) => ev(s)));
    const feed = await open(f.source, null);
    f.commit(ev(4), false); // lost on the way
    f.commit(ev(5), false); // late
    f.commit(ev(6));
    setTimeout(() => f.publish(ev(5)), 10);
    const started = Date.now();
    expect(await take(feed, 3)).toEqual([4, 5, 6]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(f.reads).toEqual([[3n, 4n, feedSettings.pageSize]]); // only the hole: 5 and 6 came live
  });

  it('out of order but complete: delivered in order without reading the database', async () => {
    const f = fakeSource([]);
    const feed = await open(f.source, null);
    for (const s of [3, 1, 2]) f.commit(ev(s));
    expect(await take(feed, 3)).toEqual([1, 2, 3]);
    expect(f.reads).toEqual([]);
  });

  it('return() ends a feed that is waiting for live events, and stops listening', async () => {
    const f = fakeSource([]);
    const feed = await open(f.source, null);
    const pending = feed.next();
    await feed.return!();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(f.listeners.size).toBe(0);
  });

  it('a refused catch-up throws at the start and listens no more', async () => {
    const f = fakeSource(range(1, 3).map((s) => ev(s)));
    const seen: [bigint, bigint, boolean][] = [];
    const refuse = (since: bigint, last: bigint, nextStored: boolean) => {
      seen.push([since, last, nextStored]);
      throw new Error('refused');
    };
    await expect(openOrderedFeed(f.source, { since: 1n, check: refuse, map: (e) => e, failed: (e) => e as never })).rejects.toThrow('refused');
    expect(seen).toEqual([[1n, 3n, true]]);
    expect(f.listeners.size).toBe(0);
  });

  it('a read that fails ends the feed with the failure as its last item', async () => {
    feedSettings.pageSize = 2;
    const f = fakeSource(range(1, 6).map((s) => ev(s)), { failReadsAfter: 1 });
    const feed = await open(f.source, 0n);
    expect(await take(feed, 10)).toEqual([1, 2, { failed: 'database gone' }]);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
    expect(f.listeners.size).toBe(0);
  });
});
