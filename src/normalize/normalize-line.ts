import { mayHoldLoneSurrogate, wellFormedInPlace } from './well-formed.js';
import { partlyRejected, type InheritingRecord, type LineOutcome, type NormalizedRecord } from '../model/record.js';
import { isObject, roundedIdWasRead, type Json } from './fields.js';
import { INPUT_FORMATS, type InputFormat } from './formats/index.js';
import { mayHoldCredential, redactInPlace, redactText, TooDeeplyNested } from './redact.js';
import { cloudLoggingNode, envelopeOf, fluentBitRecord, mayBeEnveloped, PARTIAL_LINE, shippedLine, type Envelope } from './envelopes.js';
import { ignoredHint, kindOf, normalizeSpecObject, type RecordDefaults } from './spec-record.js';
import { withExactIntegers } from './exact-integers.js';

export const SPEC_FORMAT = 'resumescope';

/**
 * Normalizes the lines of one input file. The file's format is detected from
 * its first recognizable line and then kept (a file is one export), unless the
 * user forces one with --input-format.
 */
export class LineNormalizer {
  private format: InputFormat | typeof SPEC_FORMAT | undefined;
  /** Ignored lines still to be asked what they almost were (ignoredHint). */
  private hintsLeft = 100;
  /** What the last detect() found of the kind of a line it could not place. */
  private lastKind: ReturnType<typeof kindOf> | undefined;

  /** `fileDefaults`: what the file's name says of every record in it (its pod, from a kubelet's log path). */
  constructor(
    forced?: string,
    private readonly formats: InputFormat[] = INPUT_FORMATS,
    private readonly fileDefaults?: RecordDefaults,
  ) {
    if (forced !== undefined && forced !== 'auto') {
      if (forced === SPEC_FORMAT) this.format = SPEC_FORMAT;
      else {
        const f = formats.find((x) => x.name === forced);
        if (!f) throw new Error(`unknown input format "${forced}" (known: ${[SPEC_FORMAT, ...formats.map((x) => x.name)].join(', ')})`);
        this.format = f;
      }
    }
  }

  get formatName(): string | undefined {
    return this.format === undefined ? undefined : this.format === SPEC_FORMAT ? SPEC_FORMAT : this.format.name;
  }

  /**
   * What one line is. A line that holds a credential is redacted before it is
   * read (so no record carries one) and the outcome says what to store instead.
   */
  normalize(text: string): LineOutcome {
    if (mayBeEnveloped(text)) {
      const e = envelopeOf(text);
      if (e !== undefined) return this.fromEnvelope(text, e, this.fileDefaults, 0);
    }
    return this.line(text, this.fileDefaults, 0);
  }

  /** `depth`: how many envelopes the line was inside (a Fluent Bit record inside a CloudWatch event is 1). */
  private line(text: string, defaults: RecordDefaults | undefined, depth: number): LineOutcome {
    if (text.trim() === '') return { type: 'ignored' };
    const suspect = mayHoldCredential(text);
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch (err) {
      if (!suspect) return { type: 'rejected', reason: `invalid JSON: ${(err as Error).message}` };
      // V8 quotes the text around the error: that quote could be the secret itself.
      const reason = `invalid JSON: ${(err as Error).message.replace(/, (\.\.\.)?".*$/s, '')}`;
      const redacted = redactText(text);
      return redacted === text ? { type: 'rejected', reason } : { type: 'rejected', reason, redacted };
    }
    // Valid JSON that is not an object has no kind: log-format.md counts it as ignored.
    if (!isObject(obj)) return { type: 'ignored' };
    const loneSurrogates = mayHoldLoneSurrogate(text);
    if (loneSurrogates) wellFormedInPlace(obj);
    // Its fields are redacted first; a line carried inside is redacted again by its own reading.
    let redacted = false;
    try {
      redacted = suspect && redactInPlace(obj);
    } catch (err) {
      if (!(err instanceof TooDeeplyNested)) throw err;
      // Too deep to redact (or store) as JSON: the line is rejected, its text redacted as text.
      const text2 = redactText(text);
      return text2 === text ? { type: 'rejected', reason: err.message } : { type: 'rejected', reason: err.message, redacted: text2 };
    }
    // A Cloud Logging entry names its pod beside the record: the node where the record names none.
    const pod = obj.jsonPayload !== undefined ? cloudLoggingNode(obj) : undefined;
    let out = this.read(obj, pod === undefined ? defaults : { ...defaults, node: pod });
    if (roundedIdWasRead()) {
      // An id beyond 2^53 written as a bare integer: read the line again with such integers kept as text.
      const exact = JSON.parse(withExactIntegers(text)) as typeof obj;
      if (loneSurrogates) wellFormedInPlace(exact);
      if (redacted) redactInPlace(exact);
      out = this.read(exact, pod === undefined ? defaults : { ...defaults, node: pod });
      roundedIdWasRead();
    }
    // An object that is no record may carry the server's line as a string (a Fluent Bit record's `log`, a
    // shipper's `message`), two envelopes deep at most.
    const carried = out.type === 'ignored' && depth < 2 ? (fluentBitRecord(obj) ?? shippedLine(obj)) : undefined;
    if (carried !== undefined) {
      const inner = this.fromEnvelope(text, carried, defaults, depth);
      return redacted && inner.type !== 'ignored' && inner.redacted === undefined ? { ...inner, redacted: JSON.stringify(obj) } : inner;
    }
    if (out.type === 'ignored' && this.hintsLeft > 0) {
      // Asked of a file's first ignored lines only, until one says what it almost was: a file of no record
      // line is told why (store/source-sink.ts unusableReason); a mixed log's application lines cost nothing.
      this.hintsLeft--;
      const hint = ignoredHint(obj);
      if (hint !== undefined) {
        this.hintsLeft = 0;
        return { type: 'ignored', hint };
      }
    }
    return redacted ? withRedacted(out, JSON.stringify(obj)) : out;
  }

  /**
   * The server's line inside another's (normalize/envelopes.ts: a container runtime's, journald's).
   * Text that is no JSON object there is the application's other output (a banner, a stack trace):
   * ignored, as a JSON line naming no kind is. One that starts as an object and does not parse is rejected.
   */
  private fromEnvelope(text: string, e: Envelope, defaults: RecordDefaults | undefined, depth: number): LineOutcome {
    if (e.partial) {
      const redacted = mayHoldCredential(text) ? redactText(text) : text;
      return redacted === text ? { type: 'rejected', reason: PARTIAL_LINE } : { type: 'rejected', reason: PARTIAL_LINE, redacted };
    }
    // The innermost envelope says best where and when the line was written: its time and node come first.
    const within = { ...defaults, ...(e.time !== undefined && { ts: e.time }), ...(e.node !== undefined && { node: e.node }) };
    // An envelope inside it (a CRI line a shipper sent to Loki or CloudWatch as it found it), at most two deep.
    const inner = depth === 0 && mayBeEnveloped(e.inner) ? envelopeOf(e.inner) : undefined;
    let out: LineOutcome;
    if (inner !== undefined) out = this.fromEnvelope(e.inner, inner, within, depth + 1);
    else if (!e.inner.trimStart().startsWith('{')) return { type: 'ignored' };
    else out = this.line(e.inner, within, depth + 1);
    // The innermost text is the record's own: the same record through another envelope (the app's file beside
    // the pod's CRI log) is a repeat of it (normalize/repeated-lines.ts).
    if (out.type === 'records' && out.inner === undefined) out.inner = e.inner;
    return out.type === 'ignored' || out.redacted === undefined ? out : { ...out, redacted: e.rewrap(out.redacted) };
  }

  private read(obj: Json, defaults?: RecordDefaults): LineOutcome {
    const format = this.format ?? this.detect(obj);
    if (format === undefined) {
      // No record yet showed the file's format: a kind written almost right is still rejected, saying so.
      const near = this.lastKind?.nearAlias;
      return near === undefined ? { type: 'ignored' } : { type: 'rejected', reason: near };
    }
    if (format === SPEC_FORMAT) return withFormat(normalizeSpecObject(obj, defaults), SPEC_FORMAT);
    if (!format.detect(obj)) {
      const k = kindOf(obj);
      return k.kind || k.nearAlias ? withFormat(normalizeSpecObject(obj, defaults), SPEC_FORMAT) : { type: 'ignored' };
    }
    return this.fromAdapter(format, obj);
  }

  private detect(obj: Json): InputFormat | typeof SPEC_FORMAT | undefined {
    const k = kindOf(obj);
    this.lastKind = k;
    if (k.kind !== undefined || k.unknownCanonical !== undefined) {
      this.format = SPEC_FORMAT;
      return SPEC_FORMAT;
    }
    const f = this.formats.find((x) => x.detect(obj));
    if (f) this.format = f;
    return f;
  }

  private fromAdapter(format: InputFormat, obj: Json): LineOutcome {
    let specs: Json[];
    try {
      specs = format.toSpec(obj);
    } catch (err) {
      return { type: 'rejected', reason: `${format.name}: ${(err as Error).message}` };
    }
    if (specs.length === 0) return { type: 'ignored' };
    // Each record of a batch is read on its own: one bad record of an OTLP export request (the collector
    // writes 8,192 to a line) rejects the line, with its reason, but does not take the others with it.
    const records: NormalizedRecord[] = [];
    const inheriting: InheritingRecord[] = [];
    let firstBad: { at: number; reason: string } | undefined;
    let bad = 0;
    specs.forEach((s, i) => {
      const out = normalizeSpecObject(s);
      if (out.type === 'records') {
        if (out.inherits !== undefined) inheriting.push({ index: records.length, spec: i + 1, ...out.inherits });
        records.push(...out.records);
      } else if (out.type === 'rejected') {
        bad++;
        firstBad ??= { at: i + 1, reason: out.reason };
      }
    });
    // Whether its inheriting records are read, and so what the line is, the store settles.
    if (inheriting.length > 0) {
      return { type: 'records', records, format: format.name, inheriting: { specs: specs.length, prefix: format.name, records: inheriting, bad, ...(firstBad && { firstBad }) } };
    }
    if (firstBad === undefined) return records.length ? { type: 'records', records, format: format.name } : { type: 'ignored' };
    if (specs.length === 1 || records.length === 0) return { type: 'rejected', reason: `${format.name}: ${firstBad.reason}` };
    return { type: 'records', records, format: format.name, rejected: partlyRejected(format.name, firstBad, specs.length, bad, records.length) };
  }
}

function withRedacted(o: LineOutcome, redacted: string): LineOutcome {
  return o.type === 'ignored' ? o : { ...o, redacted };
}

function withFormat(o: ReturnType<typeof normalizeSpecObject>, format: string): LineOutcome {
  // Built, not spread: a spread per line cost a tenth of normalizing it.
  if (o.type !== 'records') return o;
  if (o.inherits === undefined) return { type: 'records', records: o.records, format };
  return { type: 'records', records: o.records, format, inheriting: { specs: 1, records: [{ index: 0, spec: 1, ...o.inherits }], bad: 0 } };
}
