import { bomLength, LineAssembler, MAX_LINE_BYTES, textPreview, type InputLine } from './lines.js';

/**
 * A log console's CSV download, a row at a time (`--csv`): Splunk's "Export results" (`_raw`, `_time`,
 * `host`), CloudWatch Logs Insights' (`@timestamp`, `@message`, `@logStream`), Kibana's CSV report
 * (`@timestamp`, `message`, `host.name`), Azure Log Analytics' (`TimeGenerated [UTC]`, `LogMessage`,
 * `PodName`). The first row names the columns; each row after it becomes one line, a JSON object of its
 * non-empty cells by column, which the normalizer reads as it reads a shipper's document
 * (normalize/envelopes.ts, shippedLine): the server's line is the cell of the column that carries it.
 *
 * RFC 4180: cells separated by commas, a quoted cell may hold commas, doubled quotes and line breaks
 * (a pretty-printed JSON line in a cell spans lines). Physical lines come from a LineAssembler (its
 * decoding and caps); a row ends at the first line that leaves no quoted cell open. Each row is
 * numbered by the line it starts on; its text is not the file's bytes, so it is stored as text.
 */
export class CsvAssembler {
  private readonly lines = new LineAssembler();
  private header: string[] | undefined;
  /** A row whose quoted cell has not ended yet: its physical lines so far. */
  private held: { texts: string[]; first: number; chars: number } | undefined;

  push(chunk: Buffer): InputLine[] {
    return this.rows(this.lines.push(chunk));
  }

  /** The input ended: a row whose quoted cell never ended is rejected, a line at a time. */
  end(): InputLine[] {
    const out = this.rows(this.lines.end());
    if (this.held !== undefined) out.push(...this.unended());
    return out;
  }

  private rows(lines: InputLine[]): InputLine[] {
    const out: InputLine[] = [];
    for (const l of lines) {
      if (!('text' in l)) {
        if (this.held !== undefined) out.push(...this.unended());
        out.push(l);
        continue;
      }
      if (this.held === undefined) {
        if (!endsInQuotes(l.text, false)) out.push(...this.row(l.line, [l.text]));
        else this.held = { texts: [l.text], first: l.line, chars: l.text.length };
        continue;
      }
      const h = this.held;
      h.texts.push(l.text);
      h.chars += l.text.length + 1;
      if (!endsInQuotes(l.text, true)) {
        this.held = undefined;
        out.push(...this.row(h.first, h.texts));
      } else if (h.chars > MAX_LINE_BYTES || h.texts.length > MAX_ROW_LINES) out.push(...this.unended());
    }
    return out;
  }

  /** The row of these physical lines, as one line; or, where it is no row, each of its lines rejected, so that none is lost. */
  private row(line: number, texts: string[]): InputLine[] {
    const text = texts.join('\n');
    const cells = csvCells(text);
    const rejected = (error: string) => eachRejected(line, texts, error);
    if (cells === undefined) return rejected('a CSV row whose quotes do not close where a cell ends');
    if (this.header === undefined) {
      this.header = cells.map(columnName);
      // The header names no record: an ignored (blank) line.
      return [{ line, text: '' }];
    }
    if (cells.length === 1 && cells[0] === '') return [{ line, text: '' }];
    if (cells.length !== this.header.length) return rejected(`a CSV row of ${cells.length} cells under a header of ${this.header.length}`);
    const row: Record<string, string> = {};
    cells.forEach((cell, i) => {
      const name = this.header![i]!;
      if (cell !== '' && name !== '') row[name] = cell;
    });
    return [{ line, text: JSON.stringify(row) }];
  }

  /** The held row's lines, each rejected: nothing is lost, and the count of lines stays the file's. */
  private unended(): InputLine[] {
    const h = this.held!;
    this.held = undefined;
    return eachRejected(h.first, h.texts, ROW_NOT_ENDED);
  }
}

/** Physical lines from `first` on, each rejected for the row they were to make: the file's count of lines stays whole. */
function eachRejected(first: number, texts: string[], error: string): InputLine[] {
  return texts.map((t, i) => ({ line: first + i, error, preview: textPreview(t) }));
}

/** Physical lines one row may span before its unclosed quote is taken for a broken file. */
const MAX_ROW_LINES = 10_000;
const ROW_NOT_ENDED = 'in a CSV row whose quoted cell does not end';

/** The columns a CSV download carries the server's line in (those normalize/envelopes.ts reads as one). */
export const CSV_LINE_COLUMNS: readonly string[] = ['_raw', '@message', 'message', 'LogMessage', 'LogEntry', 'textPayload'];

/**
 * Whether a file's first line is a CSV header naming a column that carries the line; `undefined`: not
 * told yet (no whole first line in `head`).
 */
export function csvExportStart(head: Buffer, complete: boolean): boolean | undefined {
  let end = head.indexOf(0x0a);
  if (end < 0) {
    if (!complete) return undefined;
    end = head.length;
  }
  const first = head.subarray(bomLength(head), end).toString('utf8').replace(/\r$/, '');
  if (!first.includes(',')) return false;
  const cells = csvCells(first);
  return cells !== undefined && cells.some((c) => CSV_LINE_COLUMNS.includes(columnName(c)));
}

/** A row's cells (RFC 4180), or undefined where a quoted cell is not closed, or text follows its closing quote. */
export function csvCells(row: string): string[] | undefined {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (row.charCodeAt(i) !== QUOTE) {
      const comma = row.indexOf(',', i);
      if (comma < 0) {
        out.push(row.slice(i));
        return out;
      }
      out.push(row.slice(i, comma));
      i = comma + 1;
      continue;
    }
    let cell = '';
    for (i++; ; ) {
      const q = row.indexOf('"', i);
      if (q < 0) return undefined;
      cell += row.slice(i, q);
      if (row.charCodeAt(q + 1) === QUOTE) {
        cell += '"';
        i = q + 2;
      } else {
        i = q + 1;
        break;
      }
    }
    out.push(cell);
    if (i === row.length) return out;
    if (row.charCodeAt(i) !== COMMA) return undefined;
    i++;
  }
}

/** A column's name as the normalizer reads it: trimmed, without the zone Azure puts after a time (`TimeGenerated [UTC]`). */
function columnName(header: string): string {
  return header.trim().replace(/\s*\[[^\]]*\]$/, '');
}

/**
 * Whether a row's quoted cell is still open at the end of this physical line, given whether it was at
 * its start. A quote opens a cell only where the cell starts; one inside an unquoted cell (`web"1`) is
 * the cell's text, as lenient readers (Python's csv, pandas) take it, so that one stray quote does not
 * run every later line into one row.
 */
function endsInQuotes(text: string, inQuotes: boolean): boolean {
  for (let q = text.indexOf('"'); q >= 0; q = text.indexOf('"', q + 1)) {
    if (inQuotes) {
      if (text.charCodeAt(q + 1) === QUOTE) q++;
      else inQuotes = false;
    } else if (q === 0 || text.charCodeAt(q - 1) === COMMA) inQuotes = true;
  }
  return inQuotes;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
