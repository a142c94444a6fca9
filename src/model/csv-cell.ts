// CSV's quoting, for the two that write a row: a CSV download's row re-quoted once a cell is redacted
// (pipeline/normalize-lines.ts), and the query command's CSV output (render/rows.ts).

/** A cell as RFC 4180 writes it: quoted, its quotes doubled, where it holds a quote, a comma or a line break. */
export function csvQuoted(cell: string): string {
  return /[",\n\r]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}
