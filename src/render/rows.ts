import { printable, terminalSafeJson } from '../model/printable.js';

// Query results as a table, JSON or CSV. Every format may end up on a terminal (a CSV file is read
// with cat and less too), so no log value comes out as itself: the table and CSV make their cells
// printable (\u001b for ESC), JSON writes the same characters as \u escapes, which read back exact.
// JSON is the format that keeps every value exact; CSV is for a spreadsheet, and so is also kept
// from running a log value as a formula.

export type RowsFormat = 'table' | 'json' | 'csv';

export function renderRows(rows: Record<string, unknown>[], format: RowsFormat): string {
  if (format === 'json') return terminalSafeJson(JSON.stringify(rows, null, 2)) + '\n';
  const cols = rows.length ? Object.keys(rows[0]!) : [];
  if (format === 'csv') return [cols.map(csvCell).join(','), ...rows.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
  if (rows.length === 0) return '(no rows)\n';
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : printable(String(v));
    return s.length > 80 ? s.slice(0, 79) + '…' : s;
  };
  // Each cell made once, for its width and its line.
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  // A loop, not Math.max(...rows): --max-rows may allow more rows than a call takes arguments.
  const widths = cols.map((c, i) => cells.reduce((w, row) => Math.max(w, row[i]!.length), c.length));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(cols), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + `\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}

/**
 * A CSV cell: quoted as RFC 4180 says, the text printable as in the table. A text value that a
 * spreadsheet would read as a formula (=HYPERLINK(…), or a lead of + - @ tab or CR, which some
 * spreadsheets also evaluate) gets a leading ' (OWASP's CSV injection advice): the spreadsheet
 * shows the text and the quote marks it as changed. Numbers are SQLite's, not log text: -1 stays -1.
 */
function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (typeof v === 'string' && FORMULA_LEAD.test(s)) s = `'${s}`;
  s = printable(s);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const FORMULA_LEAD = /^[=+\-@\t\r]/;
