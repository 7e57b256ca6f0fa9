import type { Clock } from "../../../src/domain/clock";

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: Date | string = "2025-06-02T09:00:00.000Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}
