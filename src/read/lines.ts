import type { Readable } from 'node:stream';

/** One physical line of an input, with its 1-based number. */
export type InputLine =
  | { line: number; text: string }
  | { line: number; error: string; preview: string };

export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });
// The splitter holds one byte more than the cap: a CRLF line's CR is no content.
const HELD_BYTES = MAX_LINE_BYTES + 1;

function tooLong(line: number, head: Buffer): InputLine {
  return { line, error: `line longer than ${MAX_LINE_BYTES} bytes`, preview: preview(head) };
}

function decode(buf: Buffer, line: number): InputLine {
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--; // CRLF exports
  if (end > MAX_LINE_BYTES) return tooLong(line, buf);
  // A UTF-8 byte order mark (Windows exports) is not part of the first record.
  const start = line === 1 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  const bytes = buf.subarray(start, end);
  if (bytes.includes(0)) {
    return { line, error: 'binary content (NUL byte): not a text log line', preview: preview(bytes) };
  }
  const text = bytes.toString('utf8');
  // toString never throws; U+FFFD is the cheap signal that a strict decode is worth doing.
  if (text.includes('\uFFFD')) {
    try {
      utf8.decode(bytes);
    } catch {
      return { line, error: 'invalid UTF-8', preview: preview(bytes) };
    }
  }
  return { line, text };
}

function preview(bytes: Buffer): string {
  return bytes.subarray(0, 200).toString('latin1').replace(/[^\x20-\x7e]/g, '.');
}

/**
 * Splits a byte stream into lines without ever holding more than one line
 * (capped at MAX_LINE_BYTES) in memory, so a 1M-line file streams flat.
 * Bad lines are yielded as errors, never dropped.
 */
export async function* splitLines(input: AsyncIterable<Buffer | string> | Readable, onBytes?: (chunk: Buffer) => void): AsyncGenerator<InputLine> {
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let oversized = false;
  let lineNo = 0;
  for await (const raw of input as AsyncIterable<Buffer | string>) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    onBytes?.(chunk);
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (!oversized) {
        if (pendingLen + piece.length > HELD_BYTES) {
          oversized = true;
          pending = [Buffer.concat([...pending, piece]).subarray(0, 200)];
          pendingLen = 0;
        } else if (piece.length > 0) {
          pending.push(piece);
          pendingLen += piece.length;
        }
      }
      if (nl === -1) break;
      lineNo++;
      if (oversized) {
        yield tooLong(lineNo, pending[0] ?? Buffer.alloc(0));
      } else {
        yield decode(pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingLen), lineNo);
      }
      pending = [];
      pendingLen = 0;
      oversized = false;
      start = nl + 1;
    }
  }
  if (oversized) {
    yield tooLong(lineNo + 1, pending[0] ?? Buffer.alloc(0));
  } else if (pendingLen > 0) {
    yield decode(Buffer.concat(pending, pendingLen), lineNo + 1);
  }
}
