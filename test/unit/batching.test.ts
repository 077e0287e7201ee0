/** KeyedBatcher (src/domain/batching.ts): the group commit of matched deposits, without a database. */
import { describe, expect, it } from 'vitest';
import { BatchTimeoutError, KeyedBatcher } from '../../src/domain/batching.ts';
import { isDatabaseUnavailable } from '../../src/domain/prisma-errors.ts';

/** A run function that records its batches and finishes each when told. */
function recorder<I>() {
  const batches: { key: string; items: I[]; finish: (results?: PromiseSettledResult<string>[]) => void }[] = [];
  const run = (key: string, items: I[]) =>
    new Promise<PromiseSettledResult<string>[]>((resolve) =>
      batches.push({ key, items, finish: (results) => resolve(results ?? items.map((i) => ({ status: 'fulfilled', value: `done:${String(i)}` }))) }),
    );
  return { batches, run };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('KeyedBatcher', () => {
  it('runs a lone item at once; what arrives meanwhile goes together into the next batch', async () => {
    const { batches, run } = recorder<number>();
    const b = new KeyedBatcher(run, { max: 10, timeoutMs: 60_000 });
    const first = b.submit('w', 1);
    await tick();
    expect(batches.map((x) => x.items)).toEqual([[1]]);
    const later = [2, 3, 4].map((i) => b.submit('w', i));
    await tick();
    expect(batches).toHaveLength(1); // they wait for the running batch
    batches[0].finish();
    expect(await first).toBe('done:1');
    await tick();
    expect(batches.map((x) => x.items)).toEqual([[1], [2, 3, 4]]);
    batches[1].finish();
    expect(await Promise.all(later)).toEqual(['done:2', 'done:3', 'done:4']);
  });

  it('keys run independently; a batch holds at most `max` items; `fits` keeps conflicting items apart', async () => {
    const { batches, run } = recorder<string>();
    const b = new KeyedBatcher(run, { max: 2, timeoutMs: 60_000, fits: (batch, item) => !batch.includes(item) });
    const all = [b.submit('a', 'x'), b.submit('b', 'y')];
    await tick();
    expect(batches.map((x) => [x.key, x.items])).toEqual([['a', ['x']], ['b', ['y']]]);
    all.push(b.submit('a', 'p'), b.submit('a', 'p'), b.submit('a', 'q'), b.submit('a', 'r'));
    batches[0].finish();
    await tick();
    expect(batches[2].items).toEqual(['p', 'q']); // the second 'p' does not fit beside the first; max 2
    batches[2].finish();
    await tick();
    expect(batches[3].items).toEqual(['p', 'r']);
    batches[3].finish();
    batches[1].finish();
    expect(await Promise.all(all)).toEqual(['done:x', 'done:y', 'done:p', 'done:p', 'done:q', 'done:r']);
  });

  it('a rejected item fails only its own caller; a run that throws fails its batch, and the key goes on', async () => {
    const { batches, run } = recorder<number>();
    const b = new KeyedBatcher(run, { max: 10, timeoutMs: 60_000 });
    const one = b.submit('w', 1);
    await tick();
    const two = b.submit('w', 2);
    const three = b.submit('w', 3);
    batches[0].finish();
    await one;
    await tick();
    batches[1].finish([
      { status: 'rejected', reason: new Error('two failed') },
      { status: 'fulfilled', value: 'three ok' },
    ]);
    await expect(two).rejects.toThrow('two failed');
    expect(await three).toBe('three ok');
    const throwing = new KeyedBatcher<number, string>(async () => {
      throw new Error('statement failed');
    }, { max: 10, timeoutMs: 60_000 });
    await expect(throwing.submit('w', 1)).rejects.toThrow('statement failed');
    await expect(throwing.submit('w', 2)).rejects.toThrow('statement failed');
    const throwingAtOnce = new KeyedBatcher<number, string>(() => {
      throw new Error('thrown before any await');
    }, { max: 10, timeoutMs: 60_000 });
    await expect(throwingAtOnce.submit('w', 1)).rejects.toThrow('thrown before any await');
  });

  it('an item that `fits` throws on runs in a batch of its own; nothing is left unsettled', async () => {
    const { batches, run } = recorder<number>();
    const b = new KeyedBatcher(run, {
      max: 10,
      timeoutMs: 60_000,
      fits: (_batch, item) => {
        if (item === 2) throw new Error('cannot tell');
        return true;
      },
    });
    const first = b.submit('w', 1);
    await tick();
    const rest = [2, 3].map((i) => b.submit('w', i));
    batches[0].finish();
    await first;
    await tick();
    expect(batches[1].items).toEqual([2, 3]); // 2 comes first in its batch, where `fits` is not asked
    batches[1].finish();
    expect(await Promise.all(rest)).toEqual(['done:2', 'done:3']);
  });

  it('a batch that does not finish in time fails its items with a timeout (503 for a deposit) and the key moves on', async () => {
    const { batches, run } = recorder<number>();
    const b = new KeyedBatcher(run, { max: 10, timeoutMs: 50 });
    const hung = b.submit('w', 1);
    await tick();
    const next = b.submit('w', 2);
    const err = await hung.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BatchTimeoutError);
    expect(isDatabaseUnavailable(err)).toBe(true);
    await tick();
    expect(batches.map((x) => x.items)).toEqual([[1], [2]]);
    batches[1].finish();
    expect(await next).toBe('done:2');
    batches[0].finish(); // the late answer of the timed-out batch changes nothing
  });
});
