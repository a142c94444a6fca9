import { printable, terminalSafeJson } from '../model/printable.js';

// Query results as a table, JSON or CSV. The table is for a terminal: its cells (log values, raw
// lines) are made printable. JSON reads back to the same values; CSV is data, written as stored.

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

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
