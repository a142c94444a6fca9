import { randomUUID } from 'node:crypto';
import { printable, terminalSafeJson } from '../model/printable.js';

// Query results as a table, JSON or CSV. Every format may end up on a terminal (a CSV file is read
// with cat and less too), so no log value comes out as itself: the table and CSV make their cells
// printable (\u001b for ESC), JSON writes the same characters as \u escapes, which read back exact.
// JSON is the format that keeps every value exact; CSV is for a spreadsheet, and so is also kept
// from running a log value as a formula.
//
// Values a plain String() would blur: NULL is `<NULL>` in the table (lnav's marker) and an empty
// cell in CSV, where '' is `""` (PostgreSQL's CSV convention); JSON has null. A blob is its hex as
// an SQL literal, x'00ff', which can be pasted back into a WHERE. An integer is exact past 2^53
// (it comes as a BigInt: store/bounded-query.ts), a JSON number of all its digits.

export type RowsFormat = 'table' | 'json' | 'csv';

export interface RowsOptions {
  /** The statement's columns, so that a result of no rows still has its CSV header; default: the first row's keys. */
  columns?: string[];
  /** Table cells whole, not cut at TABLE_CELL characters. */
  wide?: boolean;
}

/** Where the table cuts a cell (with …) unless --wide. */
export const TABLE_CELL = 80;

export const NULL_MARK = '<NULL>';

export function renderRows(rows: Record<string, unknown>[], format: RowsFormat, opts: RowsOptions = {}): string {
  if (format === 'json') return renderJson(rows);
  // A name given twice keeps one column: the row objects keep the last value, as better-sqlite3 does.
  const cols = [...new Set(opts.columns ?? (rows.length ? Object.keys(rows[0]!) : []))];
  if (format === 'csv') return [cols.map((c) => csvCell(c)).join(','), ...rows.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
  if (rows.length === 0) return '(no rows)\n';
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? NULL_MARK : printable(text(v));
    return !opts.wide && s.length > TABLE_CELL ? s.slice(0, TABLE_CELL - 1) + '…' : s;
  };
  // Each cell made once, for its width and its line.
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  // A loop, not Math.max(...rows): --max-rows may allow more rows than a call takes arguments.
  const widths = cols.map((c, i) => cells.reduce((w, row) => Math.max(w, row[i]!.length), c.length));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(cols), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + `\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}

/** A value as text: a blob as x'hex', anything else as String() gives it (a BigInt with all its digits). */
function text(v: unknown): string {
  return v instanceof Uint8Array ? `x'${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}'` : String(v);
}

/**
 * JSON of the rows. JSON.stringify refuses a BigInt and cannot write a number it does not hold, so an
 * integer past 2^53 goes through as a string marked with a nonce of this call, and the marked string
 * is replaced by its digits: no log value can carry the nonce.
 */
function renderJson(rows: Record<string, unknown>[]): string {
  const mark = `bigint:${randomUUID()}:`;
  const value = (v: unknown): unknown => {
    if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : `${mark}${v}`;
    if (v instanceof Uint8Array) return text(v);
    return v;
  };
  const plain = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, value(v)])));
  const json = JSON.stringify(plain, null, 2).replace(new RegExp(`"${mark}(-?\\d+)"`, 'g'), '$1');
  return terminalSafeJson(json) + '\n';
}

/**
 * A CSV cell: quoted as RFC 4180 says, the text printable as in the table. A text value that a
 * spreadsheet would read as a formula (=HYPERLINK(…), or a lead of + - @ tab or CR, which some
 * spreadsheets also evaluate) gets a leading ' (OWASP's CSV injection advice): the spreadsheet
 * shows the text and the quote marks it as changed. Numbers are SQLite's, not log text: -1 stays -1.
 * NULL is an empty cell and '' is "", so that the two stay apart.
 */
function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v === '') return '""';
  let s = text(v);
  if (typeof v === 'string' && FORMULA_LEAD.test(s)) s = `'${s}`;
  s = printable(s);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const FORMULA_LEAD = /^[=+\-@\t\r]/;
