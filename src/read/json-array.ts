import { bomLength, decodeLine, LineAssembler, MAX_LINE_BYTES, tooLong, type InputLine } from './lines.js';

/**
 * A log export written as one JSON array rather than a line per record: `gcloud logging read
 * --format=json`, `az monitor log-analytics query`, a console's "export as JSON"; or as the AWS
 * CLI's answer, an object whose first member is the array (`aws logs filter-log-events` and
 * `get-log-events`: `{"events": [...], "nextForwardToken": …}`); or an Elasticsearch or OpenSearch
 * search answer, the array its `hits.hits` (`{"took": 5, …, "hits": {"total": …, "hits": [...]}}`,
 * each entry a hit whose `_source` is the shipper's document), or Datadog's logs search answer (its
 * `data`). Pretty-printed,
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
  /** After the array: text read as lines, or the rest of the answer it was a member of. */
  private readonly afterArray: 'after' | 'answer';
  /** An answer's array, found among its other members, and its end (null: a bare array). */
  private readonly answer: AnswerScanner | null;

  constructor(shape: JsonExport = 'array') {
    this.afterArray = shape === 'array' ? 'after' : 'answer';
    this.answer = shape === 'array' ? null : new AnswerScanner(ANSWER_PATHS[shape]);
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
          this.state = end === i && b === CLOSE_BRACKET ? this.arrayEnded() : 'between';
        }
      } else if (this.answer !== null && this.state === 'before') {
        // An answer's members before its array (a search's `took`, `_shards`, total) hold no log line.
        if (this.answer.opens(b)) this.state = 'between';
      } else if (this.answer !== null && this.state === 'answer') {
        // Its members after the array (paging tokens, the streams searched) hold none either. Where it
        // ends, another may begin: pages of a search or of the AWS CLI written one after another.
        if (this.answer.closes(b)) this.state = 'before';
      } else if (b === NEWLINE || b === SPACE || b === TAB || b === CR) {
        // between tokens
      } else if (this.state === 'before') {
        // The sniffing (jsonExportStart) saw the bracket first; a byte order mark is no content.
        if (b === OPEN_BRACKET) this.state = 'between';
      } else if (this.state === 'between') {
        if (b === CLOSE_BRACKET) this.state = this.arrayEnded();
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

  private arrayEnded(): 'after' | 'answer' {
    this.answer?.arrayEnded();
    return this.afterArray;
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

/**
 * An answer's array among its other members: where a member named by the path's last key, inside the
 * objects its other keys name, has an array for its value; and, after the array, where the answer
 * ends. Strings are skipped as strings (a bracket or a key's name inside one is text).
 */
class AnswerScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The string being read, while it is short enough to be a key of the path. */
  private text: number[] | null = null;
  private lastString = '';
  /** The key whose value is being read, at each object depth. */
  private readonly keys: string[] = [];

  constructor(private readonly path: readonly string[]) {}

  /** Whether this byte is the bracket that opens the array. */
  opens(b: number): boolean {
    if (this.step(b) !== OPEN_BRACKET) return false;
    if (this.depth === this.path.length && this.path.every((k, i) => this.keys[i] === k)) return true;
    this.depth++;
    return false;
  }

  /** The array was read to its bracket: the scan goes on in the member that held it. */
  arrayEnded(): void {
    this.depth = this.path.length;
  }

  /** Whether this byte ends the answer (its object's closing brace); then the next answer is looked for. */
  closes(b: number): boolean {
    const token = this.step(b);
    if (token === OPEN_BRACKET) this.depth++;
    if (this.depth > 0 || (token !== CLOSE_BRACE && token !== CLOSE_BRACKET)) return false;
    this.keys.length = 0;
    return true;
  }

  /** Reads one byte; returns it where it is a bracket or a brace outside strings (depth kept for all but `[`), else -1. */
  private step(b: number): number {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) (this.escaped = true), (this.text = null);
      else if (b === QUOTE) {
        this.inString = false;
        this.lastString = this.text === null ? '' : String.fromCharCode(...this.text);
      } else if (this.text !== null) {
        if (this.text.length < MAX_KEY_BYTES) this.text.push(b);
        else this.text = null;
      }
      return -1;
    }
    if (b === QUOTE) {
      this.inString = true;
      this.text = [];
    } else if (b === COLON) this.keys[this.depth - 1] = this.lastString;
    else if (b === OPEN_BRACE) this.depth++;
    // A stray closing bracket (a broken answer) must not leave the next answer's depths off by one.
    else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) this.depth = Math.max(0, this.depth - 1);
    return b === OPEN_BRACKET || b === OPEN_BRACE || b === CLOSE_BRACE || b === CLOSE_BRACKET ? b : -1;
  }
}

/** Longer strings are no key of a path this looks for. */
const MAX_KEY_BYTES = 32;

/**
 * The shapes of a JSON export: an array of entries, the AWS CLI's answer holding them in `events`, or
 * a search answer holding them in `hits.hits`.
 */
export type JsonExport = 'array' | 'events' | 'hits' | 'data';

/** Where each answer holds its entries. */
const ANSWER_PATHS: Record<Exclude<JsonExport, 'array'>, readonly string[]> = { events: ['events'], hits: ['hits', 'hits'], data: ['data'] };

const EVENTS_KEY = Buffer.from('"events"');
/** Datadog's logs search API answers `{"data": [...], "links": …, "meta": …}`. */
const DATA_KEY = Buffer.from('"data"');
/** Elasticsearch and OpenSearch begin a search answer with its time, or with its hits where `filter_path` kept only them. */
const SEARCH_KEYS = [Buffer.from('"took"'), Buffer.from('"hits"')];

/**
 * Whether a file's first bytes open a JSON export: `[` then an object (or the array's end), or `{`,
 * `"events"` (or Datadog's `"data"`), `:` and `[`, or a search answer's `{"took":` and a number, or `{"hits":` and an object;
 * blanks and a byte order mark aside. A text log whose lines start with a
 * bracket (`[pod/…]`, `[2026-12-07 …]`) does not, nor an NDJSON line. `undefined`: not told yet
 * (too few bytes).
 */
export function jsonExportStart(head: Buffer): JsonExport | false | undefined {
  let i = bomLength(head);
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
  if (next() === undefined) return undefined;
  i--;
  const key = [EVENTS_KEY, DATA_KEY, ...SEARCH_KEYS].find((k) => head.subarray(i, i + k.length).equals(k.subarray(0, Math.min(k.length, head.length - i))));
  if (key === undefined) return false;
  if (i + key.length > head.length) return undefined;
  i += key.length;
  // The AWS answer's events, or a search answer's time (a number) or hits (an object).
  const values = key === EVENTS_KEY || key === DATA_KEY ? [OPEN_BRACKET] : key === SEARCH_KEYS[0] ? [DIGITS] : [OPEN_BRACE];
  for (const expected of [COLON, ...values]) {
    const b = next();
    if (b === undefined) return undefined;
    if (expected === DIGITS ? b < 0x30 || b > 0x39 : b !== expected) return false;
  }
  return key === EVENTS_KEY ? 'events' : key === DATA_KEY ? 'data' : 'hits';
}

/** Any digit, where jsonExportStart expects a number. */
const DIGITS = -1;

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
