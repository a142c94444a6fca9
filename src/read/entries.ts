import type { Readable } from 'node:stream';
import { jsonExportStart, JsonArrayAssembler } from './json-array.js';
import { LineAssembler, type InputLine } from './lines.js';

/** Bytes in, lines out (LineAssembler, JsonArrayAssembler). */
interface Assembler {
  push(chunk: Buffer): InputLine[];
  end(): InputLine[];
}

/** Blank bytes a file may start with before its first bytes tell a JSON array export from lines. */
const MAX_SNIFF_BYTES = 64 * 1024;

/** How a stream is cut: `jsonArray`, a file that is one JSON array is read an entry at a time (`--json-array`). */
export interface Splitting {
  jsonArray?: boolean;
}

/**
 * Why a pretty-printed JSON array's first line (`[`) is rejected when entries are not asked for:
 * log-format.md reads a line per record, and such a file is unusable by it, but the user is told
 * how to read it rather than only that its first line is no JSON.
 */
export const JSON_ARRAY_NOT_READ = 'the file is one JSON document (an export written as JSON, not a record per line): pass --json-array to read each entry as a line';

/**
 * The lines of a whole stream, a chunk's worth at a time (a yield per line costs more than the split):
 * a line per line, or, for an export written as one JSON array, with `jsonArray`, an entry per entry
 * (read/json-array.ts).
 */
export async function* splitLineBatches(
  input: AsyncIterable<Buffer | string> | Readable,
  onBytes?: (chunk: Buffer) => void,
  splitting: Splitting = {},
): AsyncGenerator<InputLine[]> {
  let lines: Assembler | undefined;
  let head: Buffer | undefined;
  let hint = false;
  const first = (batch: InputLine[]) => {
    if (hint && batch.length > 0) {
      hint = false;
      const l = batch[0]!;
      const text = 'text' in l && l.line === 1 ? l.text.trim() : '';
      // Pretty-printed: the first line is the bracket alone. A compact one-line export is the JSON line it is.
      if (text === '[' || text === '{') batch[0] = { line: 1, error: JSON_ARRAY_NOT_READ, preview: text };
    }
    return batch;
  };
  for await (const raw of input as AsyncIterable<Buffer | string>) {
    let chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    onBytes?.(chunk);
    if (lines === undefined) {
      head = head === undefined ? chunk : Buffer.concat([head, chunk]);
      const shape = jsonExportStart(head);
      if (shape === undefined && head.length < MAX_SNIFF_BYTES) continue;
      const isExport = shape === 'array' || shape === 'events';
      lines = isExport && splitting.jsonArray === true ? new JsonArrayAssembler(shape) : new LineAssembler();
      hint = isExport && splitting.jsonArray !== true;
      chunk = head;
      head = undefined;
    }
    const batch = first(lines.push(chunk));
    if (batch.length > 0) yield batch;
  }
  lines ??= new LineAssembler();
  const rest = first([...(head !== undefined ? lines.push(head) : []), ...lines.end()]);
  if (rest.length > 0) yield rest;
}

/** The lines of a whole stream, one at a time. */
export async function* splitLines(input: AsyncIterable<Buffer | string> | Readable, onBytes?: (chunk: Buffer) => void, splitting: Splitting = {}): AsyncGenerator<InputLine> {
  for await (const batch of splitLineBatches(input, onBytes, splitting)) yield* batch;
}
