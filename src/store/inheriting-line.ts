import { missingField, partlyRejected, type InheritingRecord, type LineInheritance } from '../model/record.js';
import type { Param, RowShape } from './insert.js';
import type { StatelessStreams } from './stateless-streams.js';

// A line whose records include some with no session and no version (model/record.ts InheritingRecord):
// what it is depends on the lines before it, which the store reads in order. Settled here, as the
// normalizer would have settled it had it known them: the same records read, the same reasons.

/** One of the line's records, as its cells laid it out. */
export interface LineRecord {
  shape: RowShape;
  params: Param[];
  subMs: number | null;
}

/** What the line is: the records read, and why it is a rejected line (wholly, or in part), if it is one. */
export interface SettledLine {
  kept: LineRecord[];
  rejected?: string;
}

/** Settles a line's records in their order: each one read names its stream for those after it, as earlier lines' did. */
export function settleLine(h: LineInheritance, records: LineRecord[], streams: StatelessStreams): SettledLine {
  const kept: LineRecord[] = [];
  let bad = h.bad;
  let firstBad = h.firstBad;
  // h.records are in the line's order: one walk past both
  let next = 0;
  records.forEach((r, index) => {
    const inherits: InheritingRecord | undefined = h.records[next]?.index === index ? h.records[next++] : undefined;
    const stream = r.shape.stream < 0 ? undefined : r.params[r.shape.stream];
    const reason =
      inherits === undefined ? undefined
      : typeof stream === 'string' && streams.inherited(stream) !== undefined ? inherits.otherwise
      : missingField(r.params[r.shape.kind] as string, 'session');
    if (reason === undefined) {
      kept.push(r);
      noteStream(streams, r.shape, r.params);
      return;
    }
    bad++;
    if (firstBad === undefined || inherits!.spec < firstBad.at) firstBad = { at: inherits!.spec, reason };
  });
  if (firstBad === undefined) return { kept };
  const prefixed = (reason: string) => (h.prefix === undefined ? reason : `${h.prefix}: ${reason}`);
  if (h.specs === 1 || kept.length === 0) return { kept: [], rejected: prefixed(firstBad.reason) };
  return { kept, rejected: partlyRejected(h.prefix ?? '', firstBad, h.specs, bad, kept.length) };
}

/** After a record is read: its stream, where it is a stateless request's, for the records after it. */
export function noteStream(streams: StatelessStreams, shape: RowShape, params: Param[]): void {
  if (shape.stream < 0 || (shape.session >= 0 && params[shape.session] != null)) return;
  const stream = params[shape.stream];
  if (typeof stream === 'string') streams.note(params[shape.kind] as string, stream, shape.protocolVersion < 0 ? undefined : params[shape.protocolVersion]);
}
