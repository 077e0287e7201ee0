/**
 * WorkerLoop.drain (what tests use to wait for the outbox and webhook workers): it returns only once the work that was
 * due is done, also when a run the loop's own timer started claimed it first. Steps skip what another holds (as the
 * workers' `FOR UPDATE SKIP LOCKED` claims do), so the drain's step may find nothing while a run is still busy.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WorkerLoop } from '../../src/events/loop.ts';

/**
 * Items claimed by one step at a time; a claimed item is skipped by others until its slow work is done. `claimAfterMs`:
 * how long each step (in call order) takes to reach its claim (a query's round trip), 0 after those listed.
 */
function queue(workMs: number, claimAfterMs: number[] = []) {
  const due: string[] = [];
  const done: string[] = [];
  const step = async (): Promise<boolean> => {
    const wait = claimAfterMs.shift() ?? 0;
    if (wait) await new Promise((r) => setTimeout(r, wait));
    const item = due.shift();
    if (item === undefined) return false;
    await new Promise((r) => setTimeout(r, workMs));
    done.push(item);
    return due.length > 0;
  };
  return { due, done, step };
}

describe('WorkerLoop.drain', () => {
  it('waits for a run the timer started meanwhile, which claimed the work the drain would have done', async () => {
    // The loop's first run (at start) finds nothing; then the drain's step is slower to its claim (50 ms) than the
    // run the wake starts during it (0 ms): the run claims 'a', and the drain's step finds nothing.
    const q = queue(200, [0, 50, 0]);
    const loop = new WorkerLoop('test', q.step, 60_000, pino({ level: 'silent' }));
    loop.start();
    await new Promise((r) => setTimeout(r, 20));
    q.due.push('a');
    loop.wake();
    const drained = loop.drain();
    await new Promise((r) => setTimeout(r, 10));
    expect(q.due).toEqual([]); // claimed by the run, still being worked on
    await drained;
    expect(q.done).toEqual(['a']);
    await loop.stop();
  });

  it('does what is due itself when no run is going, and returns when nothing is left', async () => {
    const q = queue(5);
    const loop = new WorkerLoop('test', q.step, 60_000, pino({ level: 'silent' }));
    q.due.push('a', 'b', 'c');
    await loop.drain();
    expect(q.done).toEqual(['a', 'b', 'c']);
  });

  it('stop() waits for the run in progress, also after a wake while it ran', async () => {
    const q = queue(150);
    const loop = new WorkerLoop('test', q.step, 60_000, pino({ level: 'silent' }));
    loop.start();
    await new Promise((r) => setTimeout(r, 20));
    q.due.push('a');
    loop.wake();
    await new Promise((r) => setTimeout(r, 10));
    loop.wake(); // while the run is busy: noted, not a second run
    await loop.stop();
    expect(q.done).toEqual(['a']);
  });
});
