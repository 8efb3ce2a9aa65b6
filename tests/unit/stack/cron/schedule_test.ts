import assert from "node:assert/strict";
import { parseSchedule, ScheduleError } from "../../../../stack/cron/schedule.ts";
import { commandTag } from "../../../../stack/cron/worker.ts";
import { INVALID_SCHEDULES, VALID_SCHEDULES } from "../../../cron/helpers.ts";

const at = (iso: string) => Date.parse(iso);

Deno.test("interval schedules run every N seconds after the previous due time", () => {
  const cases: [string, number][] = [["1 second", 1], ["5 seconds", 5], ["59 seconds", 59], [
    " 10 Seconds ",
    10,
  ]];
  for (const [source, seconds] of cases) {
    const s = parseSchedule(source);
    assert.equal(s.intervalSeconds, seconds, source);
    assert.equal(s.next(1_000_000), 1_000_000 + seconds * 1000, source);
  }
});

Deno.test("cron schedules give the next due time in GMT", () => {
  const cases: [string, string, string][] = [
    ["* * * * *", "2026-01-01T00:00:30Z", "2026-01-01T00:01:00Z"],
    ["* * * * *", "2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z"],
    ["*/5 * * * *", "2026-01-01T00:03:00Z", "2026-01-01T00:05:00Z"],
    ["0 * * * *", "2026-01-01T10:10:00Z", "2026-01-01T11:00:00Z"],
    ["30 12 * * mon", "2026-01-01T00:00:00Z", "2026-01-05T12:30:00Z"], // 2026-01-01 is a Thursday
    ["0 9 * * 1-5", "2026-01-03T10:00:00Z", "2026-01-05T09:00:00Z"],
    ["0 0 1 jan-mar *", "2026-02-10T00:00:00Z", "2026-03-01T00:00:00Z"],
    ["15,45 * * * *", "2026-01-01T00:20:00Z", "2026-01-01T00:45:00Z"],
    ["0 0 $ * *", "2026-02-10T00:00:00Z", "2026-02-28T00:00:00Z"],
    ["0 0 $ * *", "2028-02-10T00:00:00Z", "2028-02-29T00:00:00Z"],
    ["0 0 * * 7", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"], // 7 is Sunday too
    ["@hourly", "2026-01-01T00:10:00Z", "2026-01-01T01:00:00Z"],
    ["@daily", "2026-01-01T00:10:00Z", "2026-01-02T00:00:00Z"],
    ["@monthly", "2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z"],
  ];
  for (const [source, after, expected] of cases) {
    const s = parseSchedule(source);
    assert.equal(s.intervalSeconds, null, source);
    assert.equal(new Date(s.next(at(after))).toISOString(), new Date(expected).toISOString(), source);
  }
});

Deno.test("schedules pg_cron refuses are refused", () => {
  for (const source of INVALID_SCHEDULES) {
    assert.throws(() => parseSchedule(source), ScheduleError, JSON.stringify(source));
  }
  for (const source of VALID_SCHEDULES) parseSchedule(source);
});

Deno.test("return_message is the command tag of the last result", () => {
  const cases: [{ command?: string; rowCount?: number }[], string][] = [
    [[{ command: "SELECT", rowCount: 1 }], "SELECT 1"],
    [[{ command: "SELECT", rowCount: 1 }, { command: "INSERT", rowCount: 3 }], "INSERT 0 3"],
    [[{ command: "UPDATE", rowCount: 0 }], "UPDATE 0"],
    [[{ command: "DELETE", rowCount: 2 }], "DELETE 2"],
    [[{ command: "CREATE" }], "CREATE"],
    [[], ""],
  ];
  for (const [results, tag] of cases) assert.equal(commandTag(results), tag);
});
