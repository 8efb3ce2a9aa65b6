/**
 * The time the flow engine runs on: the delay node sleeps on it and steps are timed with it.
 * Production uses the system clock; tests and the bench pass a virtual one (messaging's
 * VirtualClock: sleeping advances it at once), so a 30 s delay is checked without waiting.
 */
import { type Clock, systemClock, VirtualClock } from "../messaging/clock.ts";

export { type Clock, systemClock, VirtualClock };

let current: Clock = systemClock;

/** The clock flow runs use (the functions read it per request). */
export function flowClock(): Clock {
  return current;
}

/** Installs a clock for flow runs (null restores the system clock): tests and the bench. */
export function useFlowClock(clock: Clock | null): void {
  current = clock ?? systemClock;
}
