import type { JoinedLine } from './line-pieces.js';

// Lines as read, not yet normalized, flattened for the worker's port: a
// structured clone of one object per line costs about what normalizing it does.
// Four cells a line: its number, then text, offset, bytes (-1: not known), or
// for a line the reader could not take: null, why, a preview, or for a piece
// joined into an earlier line: null, null, that line's number. The input's last line, where no newline
// ends it (InputLine's `unterminated`), has its number negated.

export type RawCell = string | number | null;

export function encodeRawLines(lines: readonly JoinedLine[]): RawCell[] {
  const out: RawCell[] = [];
  for (const l of lines) {
    if ('pieceOf' in l) out.push(l.line, null, null, l.pieceOf);
    else if ('error' in l) out.push(l.line, null, l.error, l.preview);
    else out.push(l.unterminated === true ? -l.line : l.line, l.text, l.offset ?? -1, l.bytes ?? -1);
  }
  return out;
}

export function* decodeRawLines(cells: readonly RawCell[]): Generator<JoinedLine> {
  for (let i = 0; i < cells.length; i += 4) {
    const line = cells[i] as number;
    const text = cells[i + 1];
    if (text === null) {
      const error = cells[i + 2];
      yield error === null ? { line, pieceOf: cells[i + 3] as number } : { line, error: error as string, preview: cells[i + 3] as string };
      continue;
    }
    const offset = cells[i + 2] as number;
    const at = offset < 0 ? { text: text as string } : { text: text as string, offset, bytes: cells[i + 3] as number };
    yield line < 0 ? { line: -line, ...at, unterminated: true } : { line, ...at };
  }
}
