import type { InheritingRecord, LineInheritance, NormalizedLine } from '../model/record.js';
import { PARAMS, RowEncoder, SUB_MS, type Param, type RowShape } from './insert.js';

// Normalized lines as cells: the layout the normalizing side writes (LineEncoder, in either thread)
// and the store reads (source-sink.ts), in one place so that the two cannot drift.

/** What a line became, as the first cell of its cells in a LineBatch. */
export const IGNORED = 0;
export const REJECTED = 1;
const RECORDS = 2;
/** A batch line rejected in part: its reason and text as REJECTED's, then its records as RECORDS'. */
export const REJECTED_IN_PART = 3;
/** Before a line's cells, where it may come again (normalize/repeated-lines.ts): its key, number and first record's time. */
export const KEYED = 4;
/** Before a line's RECORDS, what the store settles of it (inheriting-line.ts): line, specs, prefix, bad, first bad spec and reason, then its inheriting records. */
export const INHERITING = 5;
/** An ignored line that was almost a record (NormalizedLine's `hint`): its line and what it almost was. */
export const IGNORED_HINT = 6;
/** Cells of each inheriting record after INHERITING's seven: index, spec, otherwise. */
const INHERITING_RECORD = 3;

/**
 * Normalized lines as the store takes them in bulk: flat cells, not objects,
 * so that handing a batch across threads is a copy of primitives. A line's
 * cells: IGNORED; or IGNORED_HINT, line, hint; or REJECTED, line, reason, text; or RECORDS, format, the
 * number of records, then each record's cells (insert.ts); or REJECTED_IN_PART,
 * line, reason, text, then as RECORDS; or INHERITING (above), then as RECORDS; any of the last three after
 * KEYED, key, line, time. `shapes` are the
 * keys of the record shapes first used in this batch, numbered on from the
 * batches before (one LineEncoder per source).
 */
export interface LineBatch {
  shapes: string[][];
  cells: Param[];
}

export class LineEncoder {
  private readonly rows = new RowEncoder();
  private cells: Param[] = [];
  /** Lines encoded since the last take(). */
  lines = 0;

  /** Cells encoded since the last take(): what a batch weighs. */
  get cellCount(): number {
    return this.cells.length;
  }

  add(l: NormalizedLine): void {
    this.lines++;
    const c = this.cells;
    if (l.type === 'ignored') {
      if (l.hint === undefined) c.push(IGNORED);
      else c.push(IGNORED_HINT, l.line, l.hint);
    }
    else if (l.type === 'rejected') c.push(REJECTED, l.line, l.reason, l.text);
    else {
      if (l.key !== undefined) c.push(KEYED, l.key, l.line, l.records[0]!.tsMs);
      if (l.rejected !== undefined) c.push(REJECTED_IN_PART, l.line, l.rejected.reason, l.rejected.text);
      const h = l.inheriting;
      if (h !== undefined) {
        c.push(INHERITING, l.line, h.specs, h.prefix ?? null, h.bad, h.firstBad?.at ?? null, h.firstBad?.reason ?? null, h.records.length);
        for (const r of h.records) c.push(r.index, r.spec, r.otherwise ?? null);
      }
      c.push(RECORDS, l.format, l.records.length);
      // The line's text, or where it is, goes on its first record only: an OTLP export request is one
      // line of a hundred records, and a copy on each took the store (and the port) to 100× the file.
      l.records.forEach((rec, i) => this.rows.encode(rec, l.line, i === 0 ? (l.raw ?? null) : null, i === 0 ? l.at : undefined, c));
    }
  }

  take(): LineBatch {
    const batch = { shapes: this.rows.newShapes(), cells: this.cells };
    this.cells = [];
    this.lines = 0;
    return batch;
  }
}

/**
 * Each record of the RECORDS entry whose format is at `i` (after RECORDS), in order; where the entry ends.
 * Handed over as its parts, not an object: ingest waits on the thread that reads them, a record at a time.
 */
export function readRecords(c: Param[], i: number, shapes: RowShape[], each: (shape: RowShape, params: Param[], subMs: number | null) => void): number {
  let n = c[i + 1] as number;
  for (i += 2; n > 0; n--) {
    const shape = shapes[c[i] as number]!;
    const subMs = c[i + SUB_MS] as number | null;
    const params = c.slice(i + PARAMS, i + PARAMS + shape.width);
    i += PARAMS + shape.width;
    each(shape, params, subMs);
  }
  return i;
}

/** The INHERITING entry whose cells start at `i` (after INHERITING), as the encoder laid it out; and where it ends. */
export function inheritance(c: Param[], i: number): { h: LineInheritance; end: number } {
  const firstBad = c[i + 4] === null ? undefined : { at: c[i + 4] as number, reason: c[i + 5] as string };
  const records: InheritingRecord[] = [];
  const n = c[i + 6] as number;
  for (let k = 0, j = i + 7; k < n; k++, j += INHERITING_RECORD) {
    records.push({ index: c[j] as number, spec: c[j + 1] as number, ...(c[j + 2] !== null && { otherwise: c[j + 2] as string }) });
  }
  const h = { specs: c[i + 1] as number, ...(c[i + 2] !== null && { prefix: c[i + 2] as string }), bad: c[i + 3] as number, ...(firstBad && { firstBad }), records };
  return { h, end: i + 7 + n * INHERITING_RECORD };
}

/** Where the line whose cells start at `i` (REJECTED_IN_PART, INHERITING or RECORDS) ends. */
export function pastLine(c: Param[], i: number, shapes: RowShape[]): number {
  if (c[i] === REJECTED_IN_PART) i += 4;
  else if (c[i] === INHERITING) i += 8 + (c[i + 7] as number) * INHERITING_RECORD;
  let n = c[i + 2] as number;
  for (i += 3; n > 0; n--) i += PARAMS + shapes[c[i] as number]!.width;
  return i;
}

