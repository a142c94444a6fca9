import type { Readable } from 'node:stream';
import { CsvAssembler, csvExportStart } from './csv-rows.js';
import { jsonExportStart, JsonArrayAssembler } from './json-array.js';
import { LineAssembler, textPreview, type InputLine } from './lines.js';

/** Bytes in, lines out (LineAssembler, JsonArrayAssembler, CsvAssembler). */
interface Assembler {
  push(chunk: Buffer): InputLine[];
  end(): InputLine[];
}

/** Blank bytes a file may start with before its first bytes tell a JSON array export from lines. */
const MAX_SNIFF_BYTES = 64 * 1024;

/**
 * How a stream is cut: `jsonArray`, a file that is one JSON array is read an entry at a time
 * (`--json-array`); `csv`, a CSV download a row at a time (`--csv`).
 */
export interface Splitting {
  jsonArray?: boolean;
  csv?: boolean;
}

/** The splitting asked in a command's or a run's options, and nothing else of them (what crosses to the worker). */
export function splittingOf(o: Splitting): Required<Splitting> {
  return { jsonArray: o.jsonArray === true, csv: o.csv === true };
}

/**
 * Why a pretty-printed JSON array's first line (`[`) is rejected when entries are not asked for:
 * log-format.md reads a line per record, and such a file is unusable by it, but the user is told
 * how to read it rather than only that its first line is no JSON.
 */
export const JSON_ARRAY_NOT_READ = 'the file is one JSON document (an export written as JSON, not a record per line): pass --json-array to read each entry as a line';

/** Why a CSV download's header is rejected when its rows are not asked for, as JSON_ARRAY_NOT_READ. */
export const CSV_NOT_READ = "the file is a CSV download (its header names a column that holds log lines): pass --csv to read each row's line";

/**
 * The lines of a whole stream, a chunk's worth at a time (a yield per line costs more than the split):
 * a line per line, or, for an export written as one JSON array, with `jsonArray`, an entry per entry
 * (read/json-array.ts), or for a CSV download, with `csv`, a row per row (read/csv-rows.ts).
 */
export async function* splitLineBatches(
  input: AsyncIterable<Buffer | string> | Readable,
  onBytes?: (chunk: Buffer) => void,
  splitting: Splitting = {},
): AsyncGenerator<InputLine[]> {
  let lines: Assembler | undefined;
  let head: Buffer | undefined;
  let hint: 'json' | 'csv' | undefined;
  const first = (batch: InputLine[]) => {
    if (hint !== undefined && batch.length > 0) {
      const l = batch[0]!;
      const text = 'text' in l && l.line === 1 ? l.text.trim() : '';
      // Pretty-printed: the first line is the bracket alone. A compact one-line export is the JSON line it is.
      if (hint === 'csv' && l.line === 1) batch[0] = { line: 1, error: CSV_NOT_READ, preview: textPreview(text) };
      else if (text === '[' || text === '{') batch[0] = { line: 1, error: JSON_ARRAY_NOT_READ, preview: text };
      hint = undefined;
    }
    return batch;
  };
  /** The assembler the file's first bytes call for; undefined while they do not tell yet. */
  const assemblerFor = (head: Buffer, complete: boolean): Assembler | undefined => {
    const shape = jsonExportStart(head);
    if (shape === undefined && !complete && head.length < MAX_SNIFF_BYTES) return undefined;
    if (shape !== undefined && shape !== false) {
      if (splitting.jsonArray === true) return new JsonArrayAssembler(shape);
      hint = 'json';
      return new LineAssembler();
    }
    const csv = csvExportStart(head, complete || head.length >= MAX_SNIFF_BYTES);
    if (csv === undefined) return undefined;
    if (csv && splitting.csv === true) return new CsvAssembler();
    if (csv) hint = 'csv';
    return new LineAssembler();
  };
  for await (const raw of input as AsyncIterable<Buffer | string>) {
    let chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    onBytes?.(chunk);
    if (lines === undefined) {
      head = head === undefined ? chunk : Buffer.concat([head, chunk]);
      lines = assemblerFor(head, false);
      if (lines === undefined) continue;
      chunk = head;
      head = undefined;
    }
    const batch = first(lines.push(chunk));
    if (batch.length > 0) yield batch;
  }
  lines ??= head === undefined ? new LineAssembler() : assemblerFor(head, true)!;
  const rest = first([...(head !== undefined ? lines.push(head) : []), ...lines.end()]);
  if (rest.length > 0) yield rest;
}

/** The lines of a whole stream, one at a time. */
export async function* splitLines(input: AsyncIterable<Buffer | string> | Readable, onBytes?: (chunk: Buffer) => void, splitting: Splitting = {}): AsyncGenerator<InputLine> {
  for await (const batch of splitLineBatches(input, onBytes, splitting)) yield* batch;
}
