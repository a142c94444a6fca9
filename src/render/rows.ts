import { randomUUID } from 'node:crypto';
import { printable, terminalSafeJson } from '../model/printable.js';
import { csvQuoted } from '../model/csv-cell.js';

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
const TABLE_CELL = 80;

const NULL_MARK = '<NULL>';

/** Writes a query's rows as they come, in pieces, so that no answer is ever held whole as one string. */
export interface RowsWriter {
  write(rows: Record<string, unknown>[]): void;
  /** The answer is whole: closes the JSON array, writes the table (which needs every row for its widths) and its count. */
  end(): void;
  /** Rows already written out (a table writes none before its end). */
  readonly written: number;
}

/** Table lines per piece handed to `out`. */
const TABLE_PIECE = 1000;

/**
 * JSON and CSV are written as each batch comes, and nothing before the first row: an answer stopped
 * before any row writes nothing. A JSON answer stopped after rows is left without its closing `]`, so
 * that no JSON reader takes it for the whole answer.
 */
export function rowsWriter(format: RowsFormat, out: (piece: string) => void, opts: RowsOptions = {}): RowsWriter {
  let written = 0;
  // A name given twice keeps one column: the row objects keep the last value, as better-sqlite3 does.
  let cols: string[] | undefined = opts.columns && [...new Set(opts.columns)];
  const columnsOf = (rows: Record<string, unknown>[]) => (cols ??= [...new Set(rows.length ? Object.keys(rows[0]!) : [])]);
  if (format === 'json') {
    return {
      write(rows) {
        if (rows.length === 0) return;
        out((written === 0 ? '[\n' : ',\n') + rows.map(jsonRow).join(',\n'));
        written += rows.length;
      },
      end: () => out(written === 0 ? '[]\n' : '\n]\n'),
      get written() {
        return written;
      },
    };
  }
  if (format === 'csv') {
    const header = () => columnsOf([]).map((c) => csvCell(c)).join(',') + '\n';
    return {
      write(rows) {
        if (rows.length === 0) return;
        const c = columnsOf(rows);
        out((written === 0 ? header() : '') + rows.map((r) => c.map((k) => csvCell(r[k])).join(',')).join('\n') + '\n');
        written += rows.length;
      },
      end: () => void (written === 0 && out(header())),
      get written() {
        return written;
      },
    };
  }
  const kept: Record<string, unknown>[] = [];
  return {
    write(rows) {
      // A loop, not push(...rows): a batch may hold more rows than a call takes arguments.
      for (const r of rows) kept.push(r);
    },
    end() {
      for (const piece of tablePieces(kept, columnsOf(kept), opts.wide ?? false)) out(piece);
    },
    written: 0,
  };
}

/** The rows whole, as one string: for answers known to be small (the schema, tests). */
export function renderRows(rows: Record<string, unknown>[], format: RowsFormat, opts: RowsOptions = {}): string {
  const pieces: string[] = [];
  const writer = rowsWriter(format, (p) => void pieces.push(p), opts);
  writer.write(rows);
  writer.end();
  return pieces.join('');
}

function* tablePieces(rows: Record<string, unknown>[], cols: string[], wide: boolean): Generator<string> {
  if (rows.length === 0) {
    yield '(no rows)\n';
    return;
  }
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? NULL_MARK : printable(text(v));
    return !wide && s.length > TABLE_CELL ? s.slice(0, TABLE_CELL - 1) + '…' : s;
  };
  // Each cell made once, for its width and its line.
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  // A loop, not Math.max(...rows): --max-rows may allow more rows than a call takes arguments.
  const widths = cols.map((c, i) => cells.reduce((w, row) => Math.max(w, row[i]!.length), c.length));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  yield `${line(cols)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`;
  for (let i = 0; i < cells.length; i += TABLE_PIECE) yield cells.slice(i, i + TABLE_PIECE).map(line).join('\n') + '\n';
  yield `(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}

/** A value as text: a blob as x'hex', anything else as String() gives it (a BigInt with all its digits). */
function text(v: unknown): string {
  return v instanceof Uint8Array ? `x'${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}'` : String(v);
}

/**
 * One row as an element of the JSON array, indented as JSON.stringify(rows, null, 2) would. JSON.stringify
 * refuses a BigInt and cannot write a number it does not hold, so an integer past 2^53 goes through as a
 * string marked with a nonce of this process, and the marked string is replaced by its digits: no log value
 * can carry the nonce.
 */
function jsonRow(r: Record<string, unknown>): string {
  const value = (v: unknown): unknown => {
    if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : `${BIGINT_MARK}${v}`;
    if (v instanceof Uint8Array) return text(v);
    return v;
  };
  const plain = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, value(v)]));
  const json = JSON.stringify(plain, null, 2).replace(BIGINT_MARKED, '$1').replaceAll('\n', '\n  ');
  return '  ' + terminalSafeJson(json);
}

const BIGINT_MARK = `bigint:${randomUUID()}:`;
const BIGINT_MARKED = new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g');

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
  return csvQuoted(s);
}

const FORMULA_LEAD = /^[=+\-@\t\r]/;
