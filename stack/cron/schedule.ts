/**
 * pg_cron schedules: '[1-59] seconds' intervals, the @-macros and five-field Vixie cron with '$'
 * for the last day of the month, evaluated in GMT (pg_cron's default cron.timezone). Five-field
 * expressions are computed by cron-parser; the grammar is checked here first because
 * cron-parser also takes six fields (with seconds), which pg_cron refuses.
 */
import { CronExpressionParser } from "cron-parser";

export interface Schedule {
  /** The schedule as written in cron.job. */
  readonly source: string;
  /** Seconds between runs for the interval form, else null. */
  readonly intervalSeconds: number | null;
  /**
   * The first due time strictly after `after` (ms since the epoch). For intervals, `after` is the
   * previous due time, so that runs do not drift with timer lateness.
   */
  next(after: number): number;
}

export class ScheduleError extends Error {
  constructor(source: string) {
    super(`invalid schedule: ${source}`);
    this.name = "ScheduleError";
  }
}

const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const INTERVAL_RE = /^([1-9]|[1-5][0-9]) seconds?$/;
const ITEM_RE = /^(\*|([0-9]+|[a-z]{3})(-([0-9]+|[a-z]{3}))?)(\/([0-9]+))?$/;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const BOUNDS: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];

function fieldValue(token: string, field: number): number | null {
  if (/^[0-9]+$/.test(token)) return Number(token);
  if (field === 3) return MONTHS.indexOf(token) + 1 || null;
  if (field === 4) return DAYS.includes(token) ? DAYS.indexOf(token) : null;
  return null;
}

/** The same grammar cron._validate_schedule enforces in SQL. */
function checkFields(source: string, fields: string[]): void {
  if (fields.length !== 5) throw new ScheduleError(source);
  fields.forEach((field, i) => {
    if (i === 2 && field === "$") return;
    for (const item of field.split(",")) {
      const m = ITEM_RE.exec(item);
      if (!m) throw new ScheduleError(source);
      if (m[1] !== "*") {
        const a = fieldValue(m[2], i);
        const b = m[4] === undefined ? a : fieldValue(m[4], i);
        const [lo, hi] = BOUNDS[i];
        if (a === null || b === null || a < lo || b > hi || b < a) throw new ScheduleError(source);
      }
      if (m[6] !== undefined && Number(m[6]) < 1) throw new ScheduleError(source);
    }
  });
}

export function parseSchedule(source: string): Schedule {
  const s = source.trim().toLowerCase();
  const interval = INTERVAL_RE.exec(s);
  if (interval) {
    const seconds = Number(interval[1]);
    return { source, intervalSeconds: seconds, next: (after) => after + seconds * 1000 };
  }
  const expr = MACROS[s] ?? s;
  const fields = expr.split(/\s+/);
  checkFields(source, fields);
  // cron-parser spells pg_cron's "last day of the month" as L.
  if (fields[2] === "$") fields[2] = "L";
  const normalized = fields.join(" ");
  // Parse once now so that a schedule cron-parser cannot evaluate fails at parse time.
  try {
    CronExpressionParser.parse(normalized, { tz: "UTC" });
  } catch (err) {
    throw new ScheduleError(`${source} (${err instanceof Error ? err.message : String(err)})`);
  }
  return {
    source,
    intervalSeconds: null,
    next(after) {
      const it = CronExpressionParser.parse(normalized, { tz: "UTC", currentDate: new Date(after) });
      return it.next().getTime();
    },
  };
}
