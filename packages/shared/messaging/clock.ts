/**
 * The time messaging runs on: the limiter waits on it and logs are stamped with it. Production
 * uses the system clock; tests and the bench install a virtual one (useMessagingClock) so that
 * pacing and UTC-day quotas are checked without waiting.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A clock that only moves when slept on or set: sleeping advances it instantly. */
export class VirtualClock implements Clock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
  sleep(ms: number): Promise<void> {
    this.time += Math.max(0, ms);
    return Promise.resolve();
  }
}

let current: Clock = systemClock;

export function messagingClock(): Clock {
  return current;
}

/** Installs a clock for messaging (null restores the system clock). */
export function useMessagingClock(clock: Clock | null): void {
  current = clock ?? systemClock;
}

/** Midnight UTC of the day `ms` falls in. */
export function utcDayStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}
