/**
 * One physical line of an input, with its 1-based number. `offset` and `bytes` place the text in the
 * (decompressed) byte stream, so that a store may keep where a line is instead of a copy of it.
 */
export type InputLine =
  /** `unterminated`: the input's last line, with no newline after it (a file cut while it was written, perhaps). */
  | { line: number; text: string; offset?: number; bytes?: number; unterminated?: true }
  | { line: number; error: string; preview: string };

/**
 * Lines past this are rejected, the reader holding only their head. An OTLP export request is one
 * line, and the collector's file exporter writes a batch (8,192 records by default) as one: 3–6 MB.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const PREVIEW_BYTES = 200;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Cuts a byte stream into lines one chunk at a time, never holding more than
 * one line (capped at MAX_LINE_BYTES) in memory. A partial last line is held
 * until its newline arrives; a line over the cap keeps only its head, for the
 * preview. Bad lines come out as errors, never dropped. Used for whole files
 * (splitLines) and for followed files that grow (read/follow.ts).
 */
export class LineAssembler {
  private pending: Buffer[] = [];
  private pendingLen = 0;
  private oversizedHead: Buffer | null = null;
  private lineNo = 0;
  /** Bytes of the stream before the current line, and of the current line held so far (all of it, past the cap too). */
  private consumed = 0;
  private heldBytes = 0;

  /** `linesBefore` and `bytesBefore`: where in the input its first byte is (the text after a JSON array export). */
  constructor(linesBefore = 0, bytesBefore = 0) {
    this.lineNo = linesBefore;
    this.consumed = bytesBefore;
  }

  /** The lines this chunk completes, numbered on from the previous ones. */
  push(chunk: Buffer): InputLine[] {
    const out: InputLine[] = [];
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) {
      this.hold(chunk);
      return out;
    }
    let start = 0;
    if (this.pendingLen > 0 || this.oversizedHead !== null) {
      const first = chunk.indexOf(NEWLINE);
      this.hold(chunk.subarray(0, first));
      out.push(this.take(1));
      start = first + 1;
    }
    if (start <= last) this.wholeLines(chunk.subarray(start, last), out);
    this.hold(chunk.subarray(last + 1));
    return out;
  }

  /** The input ended: a held partial line is a line after all. */
  end(): InputLine[] {
    if (this.pendingLen === 0 && this.oversizedHead === null) return [];
    const last = this.take(0);
    return ['text' in last ? { ...last, unterminated: true } : last];
  }

  /**
   * Complete lines (the bytes between two newlines, the last newline cut off).
   * Decoding them as one string and splitting that is several times cheaper
   * than a decode per line; bytes that need a closer look (NUL, bad UTF-8)
   * take the per-line path, which says which line is bad.
   */
  private wholeLines(body: Buffer, out: InputLine[]): void {
    const text = body.includes(0) ? '\uFFFD' : body.toString('utf8');
    if (text.includes('\uFFFD')) {
      let start = 0;
      for (;;) {
        const nl = body.indexOf(NEWLINE, start);
        const end = nl === -1 ? body.length : nl;
        out.push(decodeLine(body.subarray(start, end), ++this.lineNo, this.consumed));
        this.consumed += end - start + 1;
        if (nl === -1) return;
        start = nl + 1;
      }
    }
    for (const piece of text.split('\n')) {
      const line = ++this.lineNo;
      const lineStart = this.consumed;
      // One-byte strings (ASCII logs) take V8's fast path here.
      const pieceBytes = Buffer.byteLength(piece);
      this.consumed += pieceBytes + 1;
      const cr = piece.charCodeAt(piece.length - 1) === 0x0d;
      let s = cr ? piece.slice(0, -1) : piece;
      // UTF-16 length bounds the UTF-8 length: at most 3 bytes per code unit.
      if (s.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(s) > MAX_LINE_BYTES) {
        out.push(tooLong(line, Buffer.from(s.slice(0, PREVIEW_BYTES))));
        continue;
      }
      let bom = 0;
      // Not only the first line's: `cat a.ndjson b.ndjson` of two Windows exports puts b's mark at a line's start.
      if (s.charCodeAt(0) === 0xfeff) {
        s = s.slice(1);
        bom = 3;
      }
      out.push({ line, text: s, offset: lineStart + bom, bytes: pieceBytes - (cr ? 1 : 0) - bom });
    }
  }

  private hold(piece: Buffer): void {
    this.heldBytes += piece.length;
    if (piece.length === 0 || this.oversizedHead !== null) return;
    // One byte over the cap is allowed: a CRLF line's CR is no content.
    if (this.pendingLen + piece.length > MAX_LINE_BYTES + 1) {
      this.oversizedHead = Buffer.concat([...this.pending, piece]).subarray(0, PREVIEW_BYTES);
      this.pending = [];
      this.pendingLen = 0;
      return;
    }
    // A copy: a follower reuses its read buffer.
    this.pending.push(Buffer.from(piece));
    this.pendingLen += piece.length;
  }

  /** The held line, ended by `newline` bytes (1, or 0 at the end of the input). */
  private take(newline: number): InputLine {
    const line = ++this.lineNo;
    const head = this.oversizedHead;
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingLen);
    const lineStart = this.consumed;
    this.consumed += this.heldBytes + newline;
    this.pending = [];
    this.pendingLen = 0;
    this.heldBytes = 0;
    this.oversizedHead = null;
    return head !== null ? tooLong(line, head) : decodeLine(bytes, line, lineStart);
  }
}

/** A line past MAX_LINE_BYTES, rejected with its head as the preview (read/json-array.ts too). */
export function tooLong(line: number, head: Buffer): InputLine {
  return { line, error: `line longer than ${MAX_LINE_BYTES} bytes`, preview: preview(head) };
}

/** A line's bytes as text, or why they are none (NUL, bad UTF-8); read/json-array.ts decodes an entry with it. */
export function decodeLine(buf: Buffer, line: number, lineStart: number): InputLine {
  const end = buf.length > 0 && buf[buf.length - 1] === 0x0d ? buf.length - 1 : buf.length;
  if (end > MAX_LINE_BYTES) return tooLong(line, buf);
  // A UTF-8 byte order mark (Windows exports; another one where two were concatenated) is not part of the record.
  const start = bomLength(buf);
  const bytes = buf.subarray(start, end);
  if (bytes.includes(0)) {
    const utf16 = utf16Of(bytes);
    if (utf16 !== undefined) return { line, error: `UTF-16 text (${utf16}), not UTF-8: convert the file to UTF-8 (iconv -f UTF-16 -t UTF-8)`, preview: preview(bytes) };
    return { line, error: 'binary content (NUL byte): not a text log line', preview: preview(bytes) };
  }
  const text = bytes.toString('utf8');
  // toString never throws; U+FFFD is the cheap signal that a strict decode is worth doing.
  if (text.includes('\uFFFD')) {
    try {
      strictUtf8.decode(bytes);
    } catch {
      return { line, error: 'invalid UTF-8', preview: preview(bytes) };
    }
  }
  return { line, text, offset: lineStart + start, bytes: end - start };
}

/**
 * Whether a line with NUL bytes is UTF-16 (Windows PowerShell's `>` and `Out-File` write it): its byte order mark,
 * or ASCII text with every other byte NUL (a line after the first starts with the NUL of the newline before it).
 */
function utf16Of(bytes: Buffer): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'byte order mark FF FE';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'byte order mark FE FF';
  // What follows a UTF-16LE file's last newline (0A 00): its NUL alone.
  if (bytes.length === 1 && bytes[0] === 0) return 'the second byte of a UTF-16 newline';
  const n = Math.min(bytes.length, 64) & ~1;
  if (n < 4) return undefined;
  for (const zero of [0, 1]) {
    let every = true;
    for (let i = zero; i < n && every; i += 2) every = bytes[i] === 0 && bytes[i + 1 - 2 * zero] !== 0;
    if (every) return 'every other byte NUL';
  }
  return undefined;
}

/** The bytes of the UTF-8 byte order mark a file (a Windows export) starts with: 3, or 0 where it has none. */
export function bomLength(head: Buffer): number {
  return head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
}

function preview(bytes: Buffer): string {
  return bytes.subarray(0, PREVIEW_BYTES).toString('latin1').replace(NOT_PRINTABLE, '.');
}

/** A rejected line's preview, of text already decoded (a CSV row's lines, a header): its head, printable ASCII only. */
export function textPreview(text: string): string {
  return text.slice(0, PREVIEW_BYTES).replace(NOT_PRINTABLE, '.');
}

const NOT_PRINTABLE = /[^\x20-\x7e]/g;
