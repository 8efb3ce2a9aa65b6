/**
 * Dates and date ranges in price documents.
 *
 * Accepted dates: ISO `2026-03-01`; day-first numeric `01.03.2026`, `1/3/2026`, `01-03-2026`
 * (European order always: `03/04/2026` is 3 April, never March 4); written months in English,
 * German, Italian or French, `1 March 2026`, `1st March 2026`, `1. März 2026`, `1° marzo 2026`,
 * `1er mars 2026`, `March 1, 2026`. A date needs a year and must exist in the calendar. Ranges:
 * two dates joined by `to`, `until`, `till`, `through`, `-`, `–`, `and` (after `between`), `bis`,
 * `al`, `au`; a single date with `from` / `as of` / `effective` / `starting` / `dal` / `vom` / `du`
 * opens a range, one with `until` / `through` / `expires` / `ends` / `valid to` / `fino al` / `bis`
 * / `jusqu'au` closes it. Written ranges sharing one year: `1 March to 30 April 2026`, `dal 1 marzo
 * al 30 aprile 2026`, `March 1 - April 30, 2026`, `1-31 May 2026`; whole months: `March-April
 * 2026`, `da marzo ad aprile 2026`, `in May 2026`, `until end of June 2026`, `bis Ende Juni 2026`.
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
  // Italian
  gennaio: 1,
  gen: 1,
  febbraio: 2,
  marzo: 3,
  aprile: 4,
  maggio: 5,
  mag: 5,
  giugno: 6,
  giu: 6,
  luglio: 7,
  lug: 7,
  agosto: 8,
  ago: 8,
  settembre: 9,
  set: 9,
  ottobre: 10,
  ott: 10,
  dicembre: 12,
  dic: 12,
  // French
  janvier: 1,
  janv: 1,
  février: 2,
  fevrier: 2,
  févr: 2,
  mars: 3,
  avril: 4,
  avr: 4,
  juin: 6,
  juillet: 7,
  juil: 7,
  août: 8,
  aout: 8,
  septembre: 9,
  octobre: 10,
  décembre: 12,
  decembre: 12,
  déc: 12,
};
const MONTH_NAMES = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join("|");
/** Ordinal marks after a day: 1st, 1°, 1º, 1er, 1re, 1. */
const ORD = String.raw`(?:st|nd|rd|th|er|re|°|º|\.)?`;
const month = (name: string) => MONTHS[name.toLowerCase()];

const DATE_FORMS: Array<{ re: RegExp; pick: (m: RegExpExecArray) => [string, string | number, string] }> = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/y, pick: (m) => [m[1], m[2], m[3]] },
  { re: /\b(\d{1,2})[./-](\d{1,2})[./-](\d{4})\b/y, pick: (m) => [m[3], m[2], m[1]] },
  {
    re: new RegExp(String.raw`\b(\d{1,2})${ORD}\s*(${MONTH_NAMES})\.?,?\s+(\d{4})\b`, "iuy"),
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

/**
 * Every span of a text that is a date or a written range ("1 March to 30 April 2026", "March-April
 * 2026"), so that its numbers are never read as amounts or quantities.
 */
export function dateSpans(text: string): Array<{ index: number; length: number }> {
  const spans: Array<{ index: number; length: number }> = findDates(text).map((d) => ({
    index: d.index,
    length: d.length,
  }));
  for (const re of [DAY_SPAN, DAY_MONTH_SPAN, MONTH_DAY_SPAN, MONTH_SPAN, WHOLE_MONTH, MONTH_YEAR]) {
    for (const m of text.matchAll(new RegExp(re.source, "giu"))) {
      spans.push({ index: m.index!, length: m[0].length });
    }
  }
  return spans;
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

const JOINER =
  /^\s*(?:-|–|—|to|until|till|through|thru|and|bis(?: zum)?|up to|al|all'|au|à|jusqu'au|jusqu’au|fino al|e il|et le|und)\s*$/i;
const OPENERS =
  /(?:\b(?:from|as of|effective(?: from)?|starting(?: on)?|starts?|valid from|gültig ab|ab(?: dem)?|since|dated|updated|issued|published|stand|date|dal(?:l')?|a partire dal|valido dal|vom|du|à partir du|dès le|depuis le)|\bda)\s*:?\s*$/i;
const CLOSERS =
  /\b(?:until|till|through|thru|to|ends?(?: on)?|expires?(?: on)?|valid (?:to|until|through)|gültig bis|bis(?: zum)?|by|fino al(?:l')?|fino a|entro il|valido fino al|jusqu'au|jusqu’au|jusqu'à|jusqu’à|au)\s*:?\s*(?:(?:the\s+)?(?:end of|ende|fine|fin)\s+)?$/i;

/** The validity range a line states, or null when it states none. */
// "1-31 May 2026", "1.–31. Mai 2026", "dal 1 al 31 maggio 2026": two days of one written month.
const RANGE_JOIN = String
  .raw`(?:-|–|—|to|until|till|through|bis(?:\s+zum)?|al|au|à|jusqu'au|jusqu’au|fino al)`;
const DAY_SPAN = new RegExp(
  String
    .raw`\b(\d{1,2})${ORD}\s*${RANGE_JOIN}\s*(?:the\s+)?(\d{1,2})${ORD}\s*(${MONTH_NAMES})\.?,?\s+(\d{4})\b`,
  "iu",
);
// "1 March to 30 April 2026", "dal 1° marzo al 30 aprile 2026", "du 1er mars au 30 avril 2026":
// two written days, the year once at the end.
const DAY_MONTH_SPAN = new RegExp(
  String
    .raw`\b(\d{1,2})${ORD}\s*(${MONTH_NAMES})\.?\s*${RANGE_JOIN}\s*(?:the\s+|il\s+|le\s+)?(\d{1,2})${ORD}\s*(${MONTH_NAMES})\.?,?\s+(\d{4})\b`,
  "iu",
);
// "March 1 - April 30, 2026", "March 1st to April 30th 2026".
const MONTH_DAY_SPAN = new RegExp(
  String
    .raw`\b(${MONTH_NAMES})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*${RANGE_JOIN}\s*(${MONTH_NAMES})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`,
  "iu",
);
// "March-April 2026", "from March to April 2026", "da marzo ad aprile 2026", "von März bis April 2026".
const MONTH_SPAN = new RegExp(
  String
    .raw`\b(${MONTH_NAMES})\.?\s*(?:-|–|—|to|until|till|through|bis|a|ad|à|au)\s*(${MONTH_NAMES})\.?,?\s+(\d{4})\b`,
  "iu",
);
// "in May 2026", "for the month of May 2026", "im Mai 2026", "nel mese di maggio 2026", "en mai 2026".
const WHOLE_MONTH = new RegExp(
  String
    .raw`\b(?:valid\s+)?(?:in|during|throughout|for the month of|for|im(?:\s+Monat)?|nel mese di|per tutto il mese di|durante|nel|in tutto|pendant le mois de|pendant|en|tout le mois de|au mois de)\s+(${MONTH_NAMES})\.?\s+(\d{4})\b`,
  "iu",
);
// "June 2026" after a closer or an opener ("until end of June 2026", "from March 2026").
const MONTH_YEAR = new RegExp(String.raw`\b(${MONTH_NAMES})\.?\s+(\d{4})\b`, "giu");

function lastDay(y: string, m: number): string {
  return String(new Date(Date.UTC(Number(y), m, 0)).getUTCDate());
}

/** Ranges written with month names where one year serves both ends, or whole months. */
function writtenRange(text: string): DateRange | null {
  let m = DAY_SPAN.exec(text);
  if (m) {
    const from = isoIfValid(m[4], month(m[3]), m[1]);
    const to = isoIfValid(m[4], month(m[3]), m[2]);
    if (from && to && from <= to) return { from, to, text: m[0] };
  }
  m = DAY_MONTH_SPAN.exec(text);
  if (m) {
    const [m1, m2] = [month(m[2]), month(m[4])];
    // "15 December to 15 January 2027": the start is in the year before.
    const y1 = String(Number(m[5]) - (m1 > m2 ? 1 : 0));
    const from = isoIfValid(y1, m1, m[1]);
    const to = isoIfValid(m[5], m2, m[3]);
    if (from && to && from <= to) return { from, to, text: m[0] };
  }
  m = MONTH_DAY_SPAN.exec(text);
  if (m) {
    const [m1, m2] = [month(m[1]), month(m[3])];
    const y1 = String(Number(m[5]) - (m1 > m2 ? 1 : 0));
    const from = isoIfValid(y1, m1, m[2]);
    const to = isoIfValid(m[5], m2, m[4]);
    if (from && to && from <= to) return { from, to, text: m[0] };
  }
  m = MONTH_SPAN.exec(text);
  if (m) {
    const [m1, m2] = [month(m[1]), month(m[2])];
    const y1 = String(Number(m[3]) - (m1 > m2 ? 1 : 0));
    const from = isoIfValid(y1, m1, "1");
    const to = isoIfValid(m[3], m2, lastDay(m[3], m2));
    if (from && to) return { from, to, text: m[0] };
  }
  m = WHOLE_MONTH.exec(text);
  if (m && !findDates(text).length) {
    const mo = month(m[1]);
    return { from: isoIfValid(m[2], mo, "1"), to: isoIfValid(m[2], mo, lastDay(m[2], mo)), text: m[0] };
  }
  return null;
}

export function findDateRange(text: string): DateRange | null {
  const written = writtenRange(text);
  if (written) return written;
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
  let from: IsoDate | null = null;
  let to: IsoDate | null = null;
  for (const d of dates) {
    const before = text.slice(0, d.index);
    if (CLOSERS.test(before)) to ??= d.date;
    else if (OPENERS.test(before)) from ??= d.date;
  }
  // A month without a day: "until end of June 2026" closes on its last day, "from March 2026"
  // opens on its first.
  for (const m of text.matchAll(MONTH_YEAR)) {
    if (dates.some((d) => m.index! >= d.index && m.index! < d.index + d.length)) continue;
    const before = text.slice(0, m.index);
    const mo = month(m[1]);
    if (CLOSERS.test(before)) to ??= isoIfValid(m[2], mo, lastDay(m[2], mo));
    else if (OPENERS.test(before)) from ??= isoIfValid(m[2], mo, "1");
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
