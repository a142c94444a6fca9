import { REJECTED_PREVIEW } from '../model/record.js';
import { parsedObject, splitOf, type SplitLine } from '../normalize/envelopes.js';
import { redactText } from '../normalize/redact.js';
import { MAX_LINE_BYTES, type InputLine } from '../read/lines.js';

/**
 * A line as the normalizer takes it: a line of the file, or a piece a container runtime split off the
 * line numbered `pieceOf`, whose text now holds it (counted as an ignored line, as other output is).
 */
export type JoinedLine = InputLine | { line: number; pieceOf: number };

/**
 * How many lines (and characters of them) may wait on a line's last piece before its pieces are given
 * up. A stream's pieces come one after another; only the other stream's lines come between them.
 */
export const MAX_LINES_HELD = 10_000;
const MAX_CHARS_HELD = 64 * 1024 * 1024;

export const PIECES_PAST_END = 'a piece of a longer line split by the container runtime (16 KiB pieces by default): the file ends before its last piece';
export const PIECES_TOO_FAR = `a piece of a longer line split by the container runtime (16 KiB pieces by default): its last piece is not within the next ${MAX_LINES_HELD.toLocaleString('en-US')} lines or 64 MiB`;
export const PIECES_TOO_LONG = `a piece of a line split by the container runtime: joined, the line is longer than ${MAX_LINE_BYTES} bytes`;

interface Held {
  line: JoinedLine;
  /** A piece of a line not yet whole: it and every line after it wait. */
  waiting: boolean;
}

interface Unfinished {
  pieces: { held: Held; split: SplitLine; text: string }[];
  chars: number;
}

/**
 * Joins the pieces of a line a container runtime split at its limit (CRI's `P` tag, json-file's log
 * without its newline) back into the line, before it is read: an `upgrade` logging thousands of
 * replayed ids, or a call's large result, is one record, and read piece by piece it was lost. Pieces
 * of stdout and stderr interleave, so each stream's are joined on their own. Lines come out in the
 * order they came in: from a line's first piece on, every line waits until it is whole, so that the
 * normalizer on either thread sees a file's lines in order, each once.
 *
 * One per file, fed every line of it; lines that cannot be pieces (most start with `{` and are not
 * Docker's) pass through at the cost of a prefix test.
 */
export class LinePieces {
  private held: Held[] = [];
  private heldChars = 0;
  private readonly unfinished = new Map<string, Unfinished>();
  /** Streams whose line was given up, and the reason: their pieces up to its last are rejected with it. */
  private readonly givenUp = new Map<string, string>();

  push(lines: readonly InputLine[]): JoinedLine[] {
    const out: JoinedLine[] = [];
    for (const l of lines) {
      const split = 'text' in l ? splitOf(l.text, this.unfinished.size === 0 && this.givenUp.size === 0) : undefined;
      if (split === undefined && this.held.length === 0) {
        out.push(l);
        continue;
      }
      this.heldChars += 'text' in l ? l.text.length : 0;
      if (split === undefined) this.held.push({ line: l, waiting: false });
      else this.piece(l as InputLine & { text: string }, split);
      if (this.held.length > MAX_LINES_HELD || this.heldChars > MAX_CHARS_HELD) this.giveUpOldest(PIECES_TOO_FAR);
      this.release(out);
    }
    return out;
  }

  /** The file ended: a line without its last piece is whole if what came is a whole record (an unterminated last line), else its pieces are rejected. */
  end(): JoinedLine[] {
    for (const [stream, u] of [...this.unfinished]) {
      const content = contentOf(u);
      if (parsedObject(content) !== undefined || !content.trimStart().startsWith('{')) this.join(stream, u, content);
      else this.reject(stream, u, PIECES_PAST_END);
    }
    const out: JoinedLine[] = [];
    this.release(out);
    return out;
  }

  private piece(l: InputLine & { text: string }, split: SplitLine): void {
    const reason = this.givenUp.get(split.stream);
    if (reason !== undefined) {
      if (split.last) this.givenUp.delete(split.stream);
      this.held.push({ line: rejected(l, reason), waiting: false });
      return;
    }
    let u = this.unfinished.get(split.stream);
    if (u === undefined && split.last) {
      // A whole line: no piece of its stream came before it.
      this.held.push({ line: l, waiting: false });
      return;
    }
    u ??= { pieces: [], chars: 0 };
    this.unfinished.set(split.stream, u);
    const held: Held = { line: l, waiting: true };
    this.held.push(held);
    u.pieces.push({ held, split, text: l.text });
    u.chars += split.content.length;
    // UTF-16 length bounds the UTF-8 length from below: over the cap in characters is over it in bytes.
    if (u.chars > MAX_LINE_BYTES) {
      this.reject(split.stream, u, PIECES_TOO_LONG);
      if (!split.last) this.givenUp.set(split.stream, PIECES_TOO_LONG);
    } else if (split.last) this.join(split.stream, u, contentOf(u));
  }

  /** The line whole, as the runtime would have written it unsplit, numbered as its first piece; its other pieces point to it. */
  private join(stream: string, u: Unfinished, content: string): void {
    const [first, ...rest] = u.pieces;
    first!.held.line = { line: first!.held.line.line, text: first!.split.whole(content) };
    first!.held.waiting = false;
    for (const p of rest) {
      p.held.line = { line: p.held.line.line, pieceOf: first!.held.line.line };
      p.held.waiting = false;
    }
    this.unfinished.delete(stream);
  }

  private reject(stream: string, u: Unfinished, reason: string): void {
    for (const p of u.pieces) {
      p.held.line = rejected({ line: p.held.line.line, text: p.text }, reason);
      p.held.waiting = false;
    }
    this.unfinished.delete(stream);
  }

  /** Too many lines wait on the oldest unfinished line: its pieces so far, and those of it still to come, are rejected. */
  private giveUpOldest(reason: string): void {
    const oldest = [...this.unfinished].sort((a, b) => a[1].pieces[0]!.held.line.line - b[1].pieces[0]!.held.line.line)[0];
    if (oldest === undefined) return;
    this.reject(oldest[0], oldest[1], reason);
    this.givenUp.set(oldest[0], reason);
  }

  private release(out: JoinedLine[]): void {
    let n = 0;
    while (n < this.held.length && !this.held[n]!.waiting) out.push(this.held[n++]!.line);
    if (n === 0) return;
    this.held = n === this.held.length ? [] : this.held.slice(n);
    this.heldChars = this.held.reduce((sum, h) => sum + ('text' in h.line ? h.line.text.length : 0), 0);
  }
}

/** The line its pieces so far make. */
function contentOf(u: Unfinished): string {
  return u.pieces.map((p) => p.split.content).join('');
}

/** Redacted whole before it is cut, as a rejected line's text is. */
function rejected(l: { line: number; text: string }, reason: string): InputLine {
  return { line: l.line, error: reason, preview: redactText(l.text).slice(0, REJECTED_PREVIEW) };
}
