/** A worker loop: runs `step` when woken or on a timer, one run at a time, never crashing the process. */
import type { Logger } from 'pino';

export class WorkerLoop {
  private timer: NodeJS.Timeout | null = null;
  /** When the scheduled timer fires (ms since epoch), while one is scheduled. */
  private timerDue = 0;
  /** A run asked for by wakeWithin() while a run was in progress: when it is due. */
  private soonDue: number | null = null;
  private running = false;
  private again = false;
  private stopped = true;
  private current: Promise<void> = Promise.resolve();

  /**
   * @param step runs once; returns true when there may be more to do at once, or a number of milliseconds after which
   *   to run again (e.g. the next due retry), or false.
   */
  constructor(
    private readonly name: string,
    private readonly step: () => Promise<boolean | number>,
    private readonly pollMs: number,
    private readonly log: Logger,
  ) {}

  /** True once stop() was called (and before start()): long steps should wind down. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /**
   * Asks for a run within `ms` (work that may wait a little, so that several wakes share one run); a run already due
   * sooner is kept.
   */
  wakeWithin(ms: number): void {
    if (this.stopped) return;
    const due = Date.now() + ms;
    if (this.running) {
      this.soonDue = Math.min(this.soonDue ?? due, due);
      return;
    }
    if (this.timer && this.timerDue <= due) return;
    this.schedule(ms);
  }

  /**
   * Runs until there is nothing due (tests). A run the timer starts meanwhile may claim what this step would have
   * (steps skip rows another holds): it is waited for, and the step taken again, until a step finds nothing with no
   * run in progress.
   */
  async drain(): Promise<void> {
    for (;;) {
      await this.current;
      const r = await this.step();
      if (r !== true && !this.running) return;
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = Date.now() + Math.max(0, ms);
    this.timer = setTimeout(() => {
      this.timer = null;
      // `current` is always the run in progress (stop() and drain() wait for it), never a run that found one going.
      if (this.running) this.again = true;
      else this.current = this.run();
    }, Math.max(0, ms));
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    let next = this.pollMs;
    try {
      for (;;) {
        this.again = false;
        const r = await this.step();
        if (typeof r === 'number') next = Math.min(next, Math.max(r, 0));
        if (r !== true && !this.again) break;
        if (this.stopped) break;
      }
    } catch (e) {
      this.log.error({ err: e, worker: this.name }, 'worker step failed; will retry');
      next = Math.min(this.pollMs, 1000);
    } finally {
      this.running = false;
      const soon = this.soonDue === null ? next : Math.max(0, this.soonDue - Date.now());
      this.soonDue = null;
      this.schedule(this.again ? 0 : Math.min(next, soon));
    }
  }
}

/** A worker driven by a WorkerLoop: start, stop and wake are its loop's. */
export abstract class LoopWorker {
  readonly loop: WorkerLoop;

  protected constructor(name: string, step: () => Promise<boolean | number>, pollMs: number, log: Logger) {
    this.loop = new WorkerLoop(name, step, pollMs, log);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs soon (after a commit that queued work for it). */
  wake(): void {
    this.loop.wake();
  }
}
