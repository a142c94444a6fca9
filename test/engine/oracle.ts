// Facts about a generated log, read straight from its records without the
// engine: the property tests hold the engine's decisions against them.

import type { EngineRecord } from '../../src/engine/index.js';

export type Segment = { created: EngineRecord | undefined; records: EngineRecord[] };

/** The log cut at each session.created; the first segment may have no creation. */
export function segments(records: EngineRecord[]): Segment[] {
  const result: Segment[] = [{ created: undefined, records: [] }];
  for (const r of records) {
    if (r.kind === 'session.created') result.push({ created: r, records: [] });
    else result.at(-1)!.records.push(r);
  }
  return result;
}

/** The latest creation on a node compatible with `node` (unknown nodes match anything). */
export function servingSegment(records: EngineRecord[], node: string | undefined): Segment | undefined {
  return segments(records).findLast((s) => s.created && (node === undefined || s.created.node === undefined || s.created.node === node));
}

export const isEnded = (seg: Segment) => seg.records.some((r) => r.kind === 'session.terminated' || r.kind === 'session.evicted');

export interface Emission {
  id: string;
  stream: string;
  tsMs: number;
  index: number;
}

/** Records that emit an event id, in order. */
export function emissions(seg: Segment): Emission[] {
  return seg.records
    .map((r, index) => ({ r, index }))
    .filter(({ r }) => (r.kind === 'event.sent' || r.kind === 'request.sent') && r.eventId !== undefined)
    .map(({ r, index }) => ({ id: String(r.eventId), stream: r.stream!, tsMs: r.tsMs, index }));
}

const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/**
 * Each stream's lane at the end of the segment: an accepted resume continues the stream it names (else the one
 * that first emitted Last-Event-ID) on its new stream; an attach, or a stream opened afresh, starts its own.
 */
export function lanes(seg: Segment): (stream: string) => string {
  const parent = new Map<string, string>();
  const find = (s: string): string => (parent.has(s) ? find(parent.get(s)!) : s);
  const firstEmitter = new Map<string, string>();
  for (const r of seg.records) {
    if ((r.kind === 'event.sent' || r.kind === 'request.sent') && r.eventId !== undefined && r.stream && !firstEmitter.has(String(r.eventId))) {
      firstEmitter.set(String(r.eventId), r.stream);
    }
    if (r.kind === 'upgrade' && r.decision === 'resume' && is2xx(r.status) && r.newStream) {
      const resumed = r.stream ?? firstEmitter.get(String(r.lastEventId));
      if (resumed !== undefined && find(r.newStream) !== find(resumed)) parent.set(find(r.newStream), find(resumed));
    }
  }
  return find;
}

/** Server requests sent in the segment and not answered 2xx, cancelled, timed out or re-issued there. */
export function pendingRequests(seg: Segment): string[] {
  const issued: string[] = [];
  const done = new Set<string>();
  for (const r of seg.records) {
    if (r.kind === 'request.sent') issued.push(String(r.requestId));
    if (r.kind === 'event.sent' && r.rpcKind === 'request') issued.push(String(r.rpcId));
    if (r.kind === 'request.reissued') {
      done.add(String(r.requestId));
      issued.push(String(r.newRequestId));
    }
    if ((r.kind === 'request.answered' && is2xx(r.status)) || r.kind === 'request.cancelled' || r.kind === 'request.timed_out') {
      done.add(String(r.requestId));
    }
  }
  return issued.filter((id) => !done.has(id));
}

/** The answered-2xx request ids of a segment, by the event id that carried them. */
export function answeredEventIds(seg: Segment): Set<string> {
  const answered = new Set(seg.records.filter((r) => r.kind === 'request.answered' && is2xx(r.status)).map((r) => String(r.requestId)));
  const carried = seg.records.filter((r) => r.eventId !== undefined && answered.has(String(r.kind === 'event.sent' ? r.rpcId : r.requestId)));
  return new Set(carried.map((r) => String(r.eventId)));
}

/**
 * Writers at the end of the segment: which streams are live, and which belong together.
 * Accepted resumes join the new stream to the resumed and emitting streams; accepted
 * attaches join it to every earlier standalone (GET) stream.
 */
export function writers(seg: Segment) {
  const parent = new Map<string, string>();
  const find = (s: string): string => (parent.has(s) ? find(parent.get(s)!) : s);
  const join = (a: string, b: string) => {
    if (find(a) !== find(b)) parent.set(find(a), find(b));
  };
  const known = new Set<string>();
  const live = new Set<string>();
  const getMembers = new Set<string>();
  const sameLineage = (a: string, b: string) => find(a) === find(b);
  const isStandalone = (s: string) => [...getMembers].some((m) => sameLineage(m, s));
  const register = (s: string) => {
    if (!known.has(s)) live.add(s);
    known.add(s);
  };
  const firstEmitter = new Map<string, string>();

  for (const r of seg.records) {
    if (r.kind === 'stream.opened') {
      known.add(r.stream!);
      live.add(r.stream!);
      if (r.via === 'get') getMembers.add(r.stream!);
    } else if (r.kind === 'stream.closed' || r.kind === 'stream.fenced') {
      known.add(r.stream!);
      live.delete(r.stream!);
    } else if ((r.kind === 'event.sent' || r.kind === 'request.sent' || r.kind === 'request.reissued') && r.stream) {
      register(r.stream);
      if (r.eventId !== undefined && !firstEmitter.has(String(r.eventId))) firstEmitter.set(String(r.eventId), r.stream);
    } else if (r.kind === 'upgrade' && is2xx(r.status) && r.newStream) {
      const olds =
        r.decision === 'resume'
          ? [r.stream, firstEmitter.get(String(r.lastEventId))].filter((s): s is string => s !== undefined)
          : [...known].filter((s) => s !== r.newStream && isStandalone(s));
      olds.forEach(register);
      known.add(r.newStream);
      live.add(r.newStream);
      if (r.decision === 'attach') getMembers.add(r.newStream);
      for (const old of olds) join(r.newStream, old);
    }
  }
  return {
    liveInLineageOf: (s: string) => [...live].filter((l) => sameLineage(l, s)),
    liveStandalone: () => [...live].filter(isStandalone),
  };
}
