/**
 * Dates and date ranges in price documents.
 *
 * Accepted dates: ISO `2026-03-01`; day-first numeric `01.03.2026`, `1/3/2026`, `01-03-2026`
 * (European order always: `03/04/2026` is 3 April, never March 4); written months in English or
 * German, `1 March 2026`, `1st March 2026`, `1. März 2026`, `March 1, 2026`. A date needs a year and
 * must exist in the calendar. Ranges: two dates joined by `to`, `until`, `till`, `through`, `-`,
 * `–`, `and` (after `between`) or `bis`; a single date with `from` / `as of` / `effective` /
 * `starting` opens a range, one with `until` / `through` / `expires` / `ends` / `valid to` closes it.
 */
import type { IsoDate } from "../entries.ts";

const MONTHS: Record<string, number> = {
  january: 1,
  jan: 1,
  januar: 1,
  jänner: 1,
  february: 2,
  feb: 2,
  februar: 2,
  march: 3,
  mar: 3,
  märz: 3,
  maerz: 3,
  april: 4,
  apr: 4,
  may: 5,
  mai: 5,
  june: 6,
  jun: 6,
  juni: 6,
  july: 7,
  jul: 7,
  juli: 7,
  august: 8,
  aug: 8,
  september: 9,
  sep: 9,
  sept: 9,
  october: 10,
  oct: 10,
  oktober: 10,
  okt: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
  dezember: 12,
  dez: 12,
};
const MONTH_NAMES = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join("|");

const DATE_FORMS: Array<{ re: RegExp; pick: (m: RegExpExecArray) => [string, string | number, string] }> = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/y, pick: (m) => [m[1], m[2], m[3]] },
  { re: /\b(\d{1,2})[./-](\d{1,2})[./-](\d{4})\b/y, pick: (m) => [m[3], m[2], m[1]] },
  {
    re: new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th|\.)?\s+(${MONTH_NAMES})\.?,?\s+(\d{4})\b`, "iuy"),
    pick: (m) => [m[3], MONTHS[m[2].toLowerCase()], m[1]],
  },
  {
    re: new RegExp(String.raw`\b(${MONTH_NAMES})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`, "iuy"),
    pick: (m) => [m[3], MONTHS[m[1].toLowerCase()], m[2]],
  },
];

function isoIfValid(y: string, mo: string | number, d: string): IsoDate | null {
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  return `${y.padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

export interface DateMatch {
  date: IsoDate;
  index: number;
  length: number;
}

/** Every valid date in a text, in order of appearance. */
export function findDates(text: string): DateMatch[] {
  const out: DateMatch[] = [];
  for (let i = 0; i < text.length; i++) {
    if (i > 0 && /[\p{L}\p{N}]/u.test(text[i - 1])) continue;
    for (const { re, pick } of DATE_FORMS) {
      re.lastIndex = i;
      const m = re.exec(text);
      if (!m) continue;
      const date = isoIfValid(...pick(m));
      if (date) {
        out.push({ date, index: i, length: m[0].length });
        i += m[0].length - 1;
        break;
      }
    }
  }
  return out;
}

/** One date, or null. */
export function parseDate(text: string): IsoDate | null {
  const found = findDates(text);
  return found.length === 1 && found[0].length === text.trim().length ? found[0].date : null;
}

export interface DateRange {
  from: IsoDate | null;
  to: IsoDate | null;
  /** The text the range was read from. */
  text: string;
}

const JOINER = /^\s*(?:-|–|—|to|until|till|through|thru|and|bis|up to)\s*$/i;
const OPENERS =
  /\b(?:from|as of|effective(?: from)?|starting(?: on)?|starts?|valid from|gültig ab|ab|since|dated|updated|issued|published|stand|date)\s*:?\s*$/i;
const CLOSERS =
  /\b(?:until|till|through|thru|to|ends?(?: on)?|expires?(?: on)?|valid (?:to|until|through)|gültig bis|bis|by)\s*:?\s*$/i;

/** The validity range a line states, or null when it states none. */
// "1-31 May 2026", "1.–31. Mai 2026": two days of one written month.
const DAY_SPAN = new RegExp(
  String.raw`\b(\d{1,2})\.?\s*(?:-|–|—|to|bis)\s*(\d{1,2})\.?\s+(${MONTH_NAMES})\.?,?\s+(\d{4})\b`,
  "iu",
);

export function findDateRange(text: string): DateRange | null {
  const span = DAY_SPAN.exec(text);
  if (span) {
    const month = MONTHS[span[3].toLowerCase()];
    const from = isoIfValid(span[4], month, span[1]);
    const to = isoIfValid(span[4], month, span[2]);
    if (from && to && from <= to) return { from, to, text: span[0] };
  }
  const dates = findDates(text);
  for (let i = 0; i + 1 < dates.length; i++) {
    const a = dates[i];
    const b = dates[i + 1];
    if (JOINER.test(text.slice(a.index + a.length, b.index))) {
      // A range that ends before it starts is a typo; reading half of it would be a guess.
      if (a.date > b.date) return null;
      return { from: a.date, to: b.date, text: text.slice(a.index, b.index + b.length) };
    }
  }
  if (dates.length === 0) return null;
  let from: IsoDate | null = null;
  let to: IsoDate | null = null;
  for (const d of dates) {
    const before = text.slice(0, d.index);
    if (CLOSERS.test(before)) to ??= d.date;
    else if (OPENERS.test(before)) from ??= d.date;
  }
  if (!from && !to) return null;
  if (from && to && from > to) return null;
  return { from, to, text: text.trim() };
}

/** Whole days are compared as ISO strings; both bounds are inclusive. */
export function withinRange(today: IsoDate, from: IsoDate | null, to: IsoDate | null): boolean {
  return (from === null || from <= today) && (to === null || today <= to);
}

export function isIsoDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return m !== null && isoIfValid(m[1], m[2], m[3]) === s;
}
