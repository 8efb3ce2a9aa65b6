/**
 * Cron arithmetic for everything scheduled (flows' cron triggers, background agents'
 * schedules): the next slot of a five-field cron expression in an IANA timezone, computed by
 * cron-parser as wall-clock time (09:00 stays 09:00 across DST; a slot inside a spring-forward
 * gap is not invented, a slot in the fall-back hour fires once). Schedulers advance from the slot
 * they claimed, never from now(), so a late call does not drift; a schedule whose slots were
 * missed while it was down runs once and moves to the next future slot.
 */
import { CronExpressionParser } from "cron-parser";
import { DomainError } from "../errors.ts";

const FIELDS = /^\S+(\s+\S+){4}$/;

export function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The first slot strictly after `after`. Throws a 400 naming the problem. */
export function nextSlot(cron: string, timezone: string, after: Date): Date {
  if (!FIELDS.test(cron.trim())) {
    throw DomainError.invalid(`cron "${cron}" must have five fields (minute hour day month weekday)`);
  }
  if (!validTimezone(timezone)) throw DomainError.invalid(`Unknown timezone "${timezone}"`);
  try {
    return CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: after }).next().toDate();
  } catch (err) {
    throw DomainError.invalid(`Invalid cron "${cron}": ${err instanceof Error ? err.message : err}`);
  }
}

/** After running `slot`, the next slot that is still in the future at `now`. */
export function advance(cron: string, timezone: string, slot: Date, now: Date): Date {
  const next = nextSlot(cron, timezone, slot);
  return next > now ? next : nextSlot(cron, timezone, now);
}

/**
 * advance(), or null when the schedule cannot be computed (a schedule edited into something invalid
 * after it was saved): logged with `who`, so the scheduler records "no next run" instead of failing the
 * whole tick.
 */
export function advanceOrNull(
  cron: string,
  timezone: string,
  slot: Date,
  now: Date,
  who: string,
): string | null {
  try {
    return advance(cron, timezone, slot, now).toISOString();
  } catch (err) {
    console.error(`${who}: cannot compute the next slot`, err instanceof Error ? err.message : String(err));
    return null;
  }
}
