import { decodeLine, LineAssembler, MAX_LINE_BYTES, tooLong, type InputLine } from './lines.js';

/**
 * A log export written as one JSON array rather than a line per record: `gcloud logging read
 * --format=json`, `az monitor log-analytics query`, a console's "export as JSON"; or as the AWS
 * CLI's answer, an object whose first member is the array (`aws logs filter-log-events` and
 * `get-log-events`: `{"events": [...], "nextForwardToken": …}`). Pretty-printed,
 * each entry spans many lines, none of which is JSON on its own: read line by line, every line was
 * rejected. Here each entry is a line: numbered by the line it starts on (evidence cites where it
 * is), its text the entry with the printer's line breaks taken out (a JSON string holds no raw line
 * break, so every one is between tokens). Entries are cut by their brackets as the bytes come, one
 * entry held at a time, so an export of any size is read in the same memory.
 */
export class JsonArrayAssembler {
  private state: 'before' | 'between' | 'entry' | 'after' | 'answer' = 'before';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private tooLong = false;
  private entryLine = 0;
  /** The line the next byte is on, and how many bytes came before it. */
  private lineNo = 1;
  private consumed = 0;
  /** What follows the array's end, read as lines (the export said nothing of it). */
  private rest: LineAssembler | undefined;
  /** After the array: text read as lines, or the rest of the answer whose first member it was. */
  private readonly afterArray: 'after' | 'answer';

  constructor(shape: JsonExport = 'array') {
    this.afterArray = shape === 'events' ? 'answer' : 'after';
  }

  push(chunk: Buffer): InputLine[] {
    if (this.rest !== undefined) return this.rest.push(chunk);
    const out: InputLine[] = [];
    let entryStart = this.state === 'entry' ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.state === 'entry') {
        // Where the entry ends, if here: after this byte (its own closing bracket), or before it (a scalar's comma, the array's bracket).
        let end = -1;
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (b === BACKSLASH) this.escaped = true;
          else if (b === QUOTE) this.inString = false;
        } else if (b === QUOTE) this.inString = true;
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
        else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
          if (this.depth === 0) end = i;
          else if (--this.depth === 0) end = i + 1;
        } else if (b === COMMA && this.depth === 0) end = i;
        if (end >= 0) {
          this.hold(chunk.subarray(entryStart, end));
          out.push(this.take());
          entryStart = -1;
          this.state = end === i && b === CLOSE_BRACKET ? this.afterArray : 'between';
        }
      } else if (b === NEWLINE || b === SPACE || b === TAB || b === CR) {
        // between tokens
      } else if (this.state === 'before') {
        // The sniffing (jsonExportStart) saw the bracket first, or `{"events":` before it; a byte order mark is no content.
        if (b === OPEN_BRACKET) this.state = 'between';
      } else if (this.state === 'answer') {
        // The rest of the AWS CLI's answer: paging tokens, the streams searched; no log line.
      } else if (this.state === 'between') {
        if (b === CLOSE_BRACKET) this.state = this.afterArray;
        else if (b !== COMMA) {
          this.state = 'entry';
          this.entryLine = this.lineNo;
          entryStart = i;
          this.depth = b === OPEN_BRACE || b === OPEN_BRACKET ? 1 : 0;
          this.inString = b === QUOTE;
        }
      } else {
        // Text after the array: read as lines, from here on, numbered and placed in the file as they are.
        this.rest = new LineAssembler(this.lineNo - 1, this.consumed + i);
        out.push(...this.rest.push(chunk.subarray(i)));
        return out;
      }
      if (b === NEWLINE) this.lineNo++;
    }
    if (this.state === 'entry') this.hold(chunk.subarray(Math.max(entryStart, 0)));
    this.consumed += chunk.length;
    return out;
  }

  /** The input ended: an entry it cut short is a line (rejected as the JSON it is not). */
  end(): InputLine[] {
    if (this.rest !== undefined) return this.rest.end();
    if (this.state !== 'entry') return [];
    this.state = 'after';
    return [this.take()];
  }

  private hold(piece: Buffer): void {
    if (this.tooLong || piece.length === 0) return;
    if (this.heldBytes + piece.length > MAX_LINE_BYTES) {
      this.tooLong = true;
      this.held = [Buffer.concat([...this.held, piece]).subarray(0, 256)];
      return;
    }
    this.held.push(Buffer.from(piece));
    this.heldBytes += piece.length;
  }

  private take(): InputLine {
    const bytes = this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held);
    const line = this.entryLine;
    const tooLongEntry = this.tooLong;
    this.held = [];
    this.heldBytes = 0;
    this.tooLong = false;
    if (tooLongEntry) return tooLong(line, bytes);
    // Decoded as a line is (NUL, bad UTF-8 rejected), but not placed in the file: its text is not the file's bytes.
    const decoded = decodeLine(bytes, line, 0);
    return 'text' in decoded ? { line, text: decoded.text.replace(/\r?\n[ \t]*/g, '') } : decoded;
  }
}

/** The two shapes of a JSON export: an array of entries, or the AWS CLI's answer holding them in `events`. */
export type JsonExport = 'array' | 'events';

const EVENTS_KEY = Buffer.from('"events"');

/**
 * Whether a file's first bytes open a JSON export: `[` then an object (or the array's end), or `{`,
 * `"events"`, `:` and `[`; blanks and a byte order mark aside. A text log whose lines start with a
 * bracket (`[pod/…]`, `[2026-12-07 …]`) does not, nor an NDJSON line. `undefined`: not told yet
 * (too few bytes).
 */
export function jsonExportStart(head: Buffer): JsonExport | false | undefined {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const next = () => {
    while (i < head.length && (head[i] === SPACE || head[i] === NEWLINE || head[i] === TAB || head[i] === CR)) i++;
    return i < head.length ? head[i++] : undefined;
  };
  const first = next();
  if (first === undefined) return undefined;
  if (first === OPEN_BRACKET) {
    const second = next();
    if (second === undefined) return undefined;
    return second === OPEN_BRACE || second === CLOSE_BRACKET ? 'array' : false;
  }
  if (first !== OPEN_BRACE) return false;
  const key = next();
  if (key === undefined) return undefined;
  i--;
  for (let k = 0; k < EVENTS_KEY.length; k++, i++) {
    if (i >= head.length) return undefined;
    if (head[i] !== EVENTS_KEY[k]) return false;
  }
  for (const expected of [COLON, OPEN_BRACKET]) {
    const b = next();
    if (b === undefined) return undefined;
    if (b !== expected) return false;
  }
  return 'events';
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
