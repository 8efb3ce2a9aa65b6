/**
 * A channel's send pacing (max_send_rate, messages per minute): a sliding one-minute window over
 * the channel's attempts, seeded from the attempts already logged in the last minute. acquire()
 * waits (on the messaging clock) until a send fits, so a bulk send is paced, never dropped.
 */
import type { Clock } from "./clock.ts";

export const WINDOW_MS = 60_000;

export class SendPacer {
  readonly #times: number[];

  constructor(readonly perMinute: number, readonly clock: Clock, recentAttempts: number[] = []) {
    if (!Number.isInteger(perMinute) || perMinute < 1) {
      throw new Error("perMinute must be a positive integer");
    }
    this.#times = [...recentAttempts].sort((a, b) => a - b);
  }

  /** Waits until one more send fits in the window, takes the slot and returns its time. */
  async acquire(): Promise<number> {
    for (;;) {
      const now = this.clock.now();
      while (this.#times.length && this.#times[0] <= now - WINDOW_MS) this.#times.shift();
      if (this.#times.length < this.perMinute) {
        this.#times.push(now);
        return now;
      }
      await this.clock.sleep(this.#times[0] + WINDOW_MS - now);
    }
  }
}
