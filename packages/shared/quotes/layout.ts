/**
 * Quote PDF layout, stage one of two: a QuoteDocument becomes pages of positioned drawing
 * operations (pdf.ts draws them). Kept free of any PDF library so that pagination, wrapping and
 * which figures appear where are unit-tested with a fake font.
 *
 * A4 portrait; the first page carries the header and customer block; the line table continues
 * over as many pages as needed, repeating its column headings; totals and notes follow the last
 * line; every page has a footer "<quote number>  Page i of n".
 */
import { formatAmount, formatQuantity, formatUnitPrice } from "../money.ts";
import { wrapText } from "./text.ts";
import type { QuoteDocument, QuoteLine } from "./types.ts";

export type FontName = "regular" | "bold";

export interface FontMetrics {
  /** Width in points of already-sanitised text. */
  measure(text: string, font: FontName, size: number): number;
  /** Text the font can draw (see text.ts toFontText). */
  sanitize(text: string, font: FontName): string;
}

export interface TextOp {
  kind: "text";
  x: number;
  y: number;
  text: string;
  font: FontName;
  size: number;
  /** x is the left edge, or the right edge for right-aligned text. */
  align: "left" | "right";
  muted?: boolean;
}

export interface RuleOp {
  kind: "rule";
  x1: number;
  x2: number;
  y: number;
}

export type DrawOp = TextOp | RuleOp;

export const PAGE = { width: 595.28, height: 841.89, margin: 50 } as const;
const RIGHT = PAGE.width - PAGE.margin;
const BOTTOM = PAGE.margin + 30; // room for the footer
const BODY = 9;
const LEADING = 12;

interface Column {
  title: string;
  width: number;
  align: "left" | "right";
  /** Left padding of a left-aligned column that follows a right-aligned one. */
  inset?: number;
  cell(line: QuoteLine, index: number): string;
}

const COLUMNS: Column[] = [
  { title: "#", width: 24, align: "left", cell: (_l, i) => String(i + 1) },
  { title: "Description", width: 171, align: "left", cell: (l) => l.label ?? "" },
  { title: "Qty", width: 48, align: "right", cell: (l) => formatQuantity(l.quantity) },
  { title: "Unit", width: 40, align: "left", inset: 8, cell: (l) => l.unit ?? "" },
  { title: "Unit price", width: 70, align: "right", cell: (l) => price(l.unit_price ?? l.discounted_price) },
  {
    title: "Discounted",
    width: 70,
    align: "right",
    cell: (
      l,
    ) => (l.discounted_price === null || l.unit_price === null ? "" : formatUnitPrice(l.discounted_price)),
  },
  {
    title: "Line total",
    width: 72,
    align: "right",
    cell: (l) => (l.line_total === null ? "-" : formatAmount(l.line_total)),
  },
];

/** Where a cell's text is anchored: its left edge, or its right edge for figures. */
function cellX(c: Column, x: number): number {
  return c.align === "left" ? x + (c.inset ?? 0) : x + c.width - 4;
}

/** A cell never outgrows a page: longer text is cut, marked with "...". */
export const MAX_CELL_LINES = 48;
function clip(lines: string[]): string[] {
  return lines.length <= MAX_CELL_LINES ? lines : [...lines.slice(0, MAX_CELL_LINES - 1), "..."];
}

function price(v: number | null): string {
  return v === null ? "-" : formatUnitPrice(v);
}

/** Lays out the whole document; returns one operation list per page. */
export function layoutQuote(doc: QuoteDocument, fonts: FontMetrics, generatedAt: Date): DrawOp[][] {
  const pages: DrawOp[][] = [[]];
  let y = PAGE.height - PAGE.margin;
  const page = () => pages[pages.length - 1];
  const text = (
    x: number,
    yy: number,
    s: string,
    font: FontName,
    size: number,
    align: "left" | "right" = "left",
  ) => page().push({ kind: "text", x, y: yy, text: fonts.sanitize(s, font), font, size, align });
  // Hard line breaks survive; sanitize() would turn them into spaces.
  const wrap = (s: string, width: number, font: FontName, size: number) =>
    s.split(/\r\n?|\n/).flatMap((p) =>
      wrapText(fonts.sanitize(p, font), width, (t) => fonts.measure(t, font, size))
    );
  const newPage = () => {
    pages.push([]);
    y = PAGE.height - PAGE.margin;
  };

  // ---- header ----
  const q = doc.quote;
  text(PAGE.margin, y - 22, "QUOTE", "bold", 22);
  text(RIGHT, y - 14, q.quote_number, "bold", 14, "right");
  y -= 44;
  // Facts on the right and the customer on the left start at the same height.
  const top = y;
  const facts: [string, string][] = [["Date", q.issue_date]];
  if (q.valid_until) facts.push(["Valid until", q.valid_until]);
  facts.push(["Currency", q.currency]);
  for (const [k, v] of facts) {
    text(RIGHT - 150, y, `${k}:`, "bold", BODY);
    text(RIGHT, y, v, "regular", BODY, "right");
    y -= LEADING;
  }
  const factsBottom = y;
  y = top;
  text(PAGE.margin, y, "Customer", "bold", BODY);
  const customer = [q.customer_name, q.customer_company, q.customer_email, q.customer_address]
    .filter((v): v is string => !!v && v.trim() !== "");
  for (const part of customer) {
    for (const l of wrap(part, 250, "regular", BODY)) {
      y -= LEADING;
      text(PAGE.margin, y, l, "regular", BODY);
    }
  }
  y = Math.min(factsBottom, y - LEADING) - 10;
  if (q.title) {
    for (const l of wrap(q.title, RIGHT - PAGE.margin, "bold", 12)) {
      text(PAGE.margin, y, l, "bold", 12);
      y -= 16;
    }
    y -= 4;
  }

  // ---- line table ----
  const tableHeader = () => {
    let x = PAGE.margin;
    for (const c of COLUMNS) {
      text(cellX(c, x), y, c.title, "bold", BODY, c.align);
      x += c.width;
    }
    page().push({ kind: "rule", x1: PAGE.margin, x2: RIGHT, y: y - 4 });
    y -= LEADING + 4;
  };
  tableHeader();
  doc.items.forEach((line, i) => {
    const cells = COLUMNS.map((c) =>
      clip(wrap(c.cell(line, i), c.width - 8 - (c.inset ?? 0), "regular", BODY))
    );
    const height = Math.max(...cells.map((c) => c.length)) * LEADING;
    if (y - height < BOTTOM) {
      newPage();
      tableHeader();
    }
    let x = PAGE.margin;
    COLUMNS.forEach((c, ci) => {
      cells[ci].forEach((l, li) => text(cellX(c, x), y - li * LEADING, l, "regular", BODY, c.align));
      x += c.width;
    });
    y -= height + 4;
  });
  if (doc.items.length === 0) {
    text(PAGE.margin, y, "This quote has no lines.", "regular", BODY);
    y -= LEADING;
  }

  // ---- totals and notes ----
  const t = doc.totals;
  const totals: [string, string, FontName][] = [["Subtotal", formatAmount(t.subtotal), "regular"]];
  if (t.discount_total !== 0) totals.push(["Discount", `-${formatAmount(t.discount_total)}`, "regular"]);
  totals.push([`Total (${t.currency})`, formatAmount(t.total), "bold"]);
  const notes: string[] = [];
  if (t.unpriced_item_count > 0) {
    notes.push(`${t.unpriced_item_count} line(s) without a price are not included in the total.`);
  }
  if (q.notes && q.notes.trim() !== "") notes.push(q.notes);
  const noteLines = notes.flatMap((n) => wrap(n, RIGHT - PAGE.margin, "regular", BODY));
  const needed = 8 + totals.length * (LEADING + 2) + (noteLines.length ? 10 + noteLines.length * LEADING : 0);
  if (y - needed < BOTTOM) newPage();
  page().push({ kind: "rule", x1: RIGHT - 200, x2: RIGHT, y: y + 4 });
  y -= 8;
  for (const [label, value, font] of totals) {
    text(RIGHT - 200, y, label, font, font === "bold" ? 11 : BODY);
    text(RIGHT, y, value, font, font === "bold" ? 11 : BODY, "right");
    y -= LEADING + 2;
  }
  if (noteLines.length) {
    y -= 10;
    for (const l of noteLines) {
      text(PAGE.margin, y, l, "regular", BODY);
      y -= LEADING;
    }
  }

  // ---- footers, now that the page count is known ----
  const stamp = generatedAt.toISOString().slice(0, 10);
  pages.forEach((ops, i) => {
    ops.push({
      kind: "text",
      x: PAGE.margin,
      y: PAGE.margin,
      text: fonts.sanitize(`${q.quote_number}  Generated ${stamp}`, "regular"),
      font: "regular",
      size: 8,
      align: "left",
      muted: true,
    });
    ops.push({
      kind: "text",
      x: RIGHT,
      y: PAGE.margin,
      text: `Page ${i + 1} of ${pages.length}`,
      font: "regular",
      size: 8,
      align: "right",
      muted: true,
    });
  });
  return pages;
}
