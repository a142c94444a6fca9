import { REJECTED_PREVIEW } from '../model/record.js';
import { parsedObject, splitOf, type SplitLine } from '../normalize/envelopes.js';
import { REDACTED, redactText } from '../normalize/redact.js';
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
const PIECES_TOO_LONG = `a piece of a line split by the container runtime: joined, the line is longer than ${MAX_LINE_BYTES} bytes`;

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
  /** A given-up stream's last piece so far, its end: what the next piece is redacted after. */
  private readonly tails = new Map<string, string>();

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
      // Redacted after the end of the piece before it, which may have named this one's value.
      const tail = this.tails.get(split.stream) ?? '';
      const c = redactedPieces([tail, split.content])[1]!;
      const text = c === split.content ? l.text : l.text.endsWith(split.content) ? l.text.slice(0, l.text.length - split.content.length) + c : split.whole(c);
      if (split.last) {
        this.givenUp.delete(split.stream);
        this.tails.delete(split.stream);
      } else this.tails.set(split.stream, split.content.slice(-TAIL_KEPT));
      this.held.push({ line: { line: l.line, error: reason, preview: redactText(text).slice(0, REJECTED_PREVIEW) }, waiting: false });
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

  /** Its pieces are redacted joined (a name at the end of one piece, its value at the start of the next), then each is cut back out. */
  private reject(stream: string, u: Unfinished, reason: string): void {
    const contents = redactedPieces(u.pieces.map((p) => p.split.content));
    u.pieces.forEach((p, i) => {
      const c = contents[i]!;
      const text = c === p.split.content ? p.text : p.text.endsWith(p.split.content) ? p.text.slice(0, p.text.length - p.split.content.length) + c : p.split.whole(c);
      p.held.line = { line: p.held.line.line, error: reason, preview: text.slice(0, REJECTED_PREVIEW) };
      p.held.waiting = false;
    });
    if (!u.pieces.at(-1)!.split.last) this.tails.set(stream, u.pieces.at(-1)!.split.content.slice(-TAIL_KEPT));
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

/** How much of a given-up line's last piece the next piece is redacted after: a name and its separators. */
const TAIL_KEPT = 4096;

/**
 * The pieces of one line, redacted joined and cut back where they were cut: a piece that starts with
 * a value whose name ended the piece before it is redacted as the value it is. Each piece's text is
 * a part of the redacted line; where a piece began inside a redacted value (its boundary was
 * swallowed by the marker), the piece before it shows the marker and the piece is the marker alone.
 */
function redactedPieces(contents: readonly string[]): string[] {
  if (contents.length === 1) return [redactText(contents[0]!)];
  const mark = (i: number) => `\u0000${i}\u0000`;
  const joined = contents.map((c, i) => (i === 0 ? c : mark(i) + c)).join('');
  const r = redactText(joined);
  if (r === joined) return [...contents];
  const out: string[] = [];
  let at = 0;
  let current = 0;
  for (let i = 1; i < contents.length; i++) {
    const k = r.indexOf(mark(i), at);
    if (k < 0) continue;
    out[current] = r.slice(at, k);
    for (let j = current + 1; j < i; j++) out[j] = REDACTED;
    at = k + mark(i).length;
    current = i;
  }
  out[current] = r.slice(at);
  for (let j = current + 1; j < contents.length; j++) out[j] = REDACTED;
  // A piece is whole or a redacted part; a marker planted in the text is no boundary.
  return out.map((c, i) => (c === contents[i] ? c : c.replace(/\u0000\d+\u0000/g, '')));
}
