/** The injectable clock every time rule reads (expiry, KST dates, agency delay), so tests control time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | string | number = Date.now()) {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  set(to: Date | string | number): void {
    this.t = new Date(to).getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A clock that follows the system clock plus an offset the tests can move forward. */
export class OffsetClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
