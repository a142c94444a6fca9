// One session's records, in log order, folded into its derived timeline:
// incarnations, streams (lanes, open/close/fence/superseded), events in
// emission order per lane, and server-to-client request lifecycles.
// Pure and linear in the session's records; session-chunks.ts and derive.ts do the I/O.

import { isStandaloneLineage } from '../engine/standalone.js';
import { EventEmitters } from './event-emitters.js';
import type { RecordRow } from '../model/record.js';

/** The columns the fold reads; `session` and `new_session` only where an upgrade may have minted one (rules.md v2: its new stream is the minted one's). */
export type FoldRecord = Pick<
  RecordRow,
  | 'id' | 'ts_ms' | 'kind' | 'node' | 'principal' | 'incarnation' | 'stream' | 'sequence' | 'conn' | 'via' | 'reason' | 'log_evicted'
  | 'event_id' | 'rpc_kind' | 'rpc_id' | 'method' | 'attached' | 'last_event_id' | 'new_stream' | 'decision' | 'status' | 'request_id' | 'new_request_id'
> &
  Partial<Pick<RecordRow, 'session' | 'new_session'>>;

export interface IncarnationRow {
  created_id: number; created_ts: number; incarnation: string | null; node: string | null; owner: string | null;
  ended_id: number | null; ended_ts: number | null; ended_how: string | null; log_evicted: number | null;
}

export interface StreamRow {
  stream: string; lane: string; via: string | null;
  opened_id: number | null; opened_ts: number | null; node: string | null; conn: string | null; principal: string | null;
  closed_id: number | null; closed_ts: number | null; close_reason: string | null;
  fenced_id: number | null; fenced_ts: number | null;
  superseded_id: number | null; superseded_ts: number | null;
}

export interface EventRow {
  id: number; stream: string; lane: string; event_id: string; ts_ms: number; lane_pos: number;
  attached: number; request_id: string | null; method: string | null;
}

export interface RequestRow {
  request_id: string; sent_id: number; sent_ts: number; stream: string | null; method: string | null; event_id: string | null;
  answered_id: number | null; answered_ts: number | null; cancelled_id: number | null; reissued_id: number | null;
  timed_out_id: number | null; resolved_ts: number | null;
}

export interface SessionFold {
  incarnations: IncarnationRow[];
  streams: StreamRow[];
  events: EventRow[];
  requests: RequestRow[];
}

/**
 * A fold whose event rows are made as they are written: from the session's emissions read again
 * (isEmission, in fold order), once the lanes are known. A session the whole log long is not held twice.
 */
export interface StreamedFold extends Omit<SessionFold, 'events'> {
  events: Iterable<EventRow>;
}

const ok = (s: number | null) => s !== null && s >= 200 && s < 300;
const before = (a: { ts: number; id: number }, b: { ts: number; id: number }) => a.ts < b.ts || (a.ts === b.ts && a.id < b.id);

/** The fields of an event.sent or request.sent the events are made of, once the lanes are known (a whole record is twice the size). */
type Emission = Pick<FoldRecord, 'id' | 'kind' | 'stream' | 'event_id' | 'ts_ms' | 'attached' | 'request_id' | 'rpc_kind' | 'rpc_id' | 'method'>;
const emission = (r: FoldRecord): Emission => ({
  id: r.id, kind: r.kind, stream: r.stream, event_id: r.event_id, ts_ms: r.ts_ms, attached: r.attached, request_id: r.request_id,
  rpc_kind: r.rpc_kind, rpc_id: r.rpc_id, method: r.method,
});

/** What the lane and supersession passes read of an accepted resume or attach (a whole record is several times the size). */
interface AcceptedUpgrade {
  id: number;
  ts_ms: number;
  decision: string;
  new_stream: string | null;
  /** A resume's: the stream it names, then the stream that emitted its Last-Event-ID last before it. */
  targets: readonly string[];
}
const NO_TARGETS: readonly string[] = Object.freeze([]);

/** What a stream opened by an upgrade's response takes of the upgrade. */
type OpeningUpgrade = Pick<FoldRecord, 'id' | 'ts_ms' | 'node' | 'conn' | 'principal'>;

/** Which event.sent a request.sent names: its stream and event id. */
const carrierKey = (r: Pick<Emission, 'stream' | 'event_id'>) => `${r.stream}\0${r.event_id}`;

/** The records an event row may be made of: an event.sent on a stream, a request.sent naming an event. */
export const isEmission = (r: Pick<FoldRecord, 'kind' | 'event_id' | 'stream'>): boolean =>
  r.event_id !== null && (r.kind === 'request.sent' || (r.kind === 'event.sent' && r.stream !== null));

/** An emission finish() has made its row of. */
const RELEASED: Emission = Object.freeze({
  id: 0, kind: '', stream: null, event_id: null, ts_ms: 0, attached: null, request_id: null, rpc_kind: null, rpc_id: null, method: null,
});

/**
 * One copy of each value of a field that takes few in a session (node, via, a close's reason, a method): as SQLite
 * hands them over, each row of a long session held its own. Past FEW_VALUES values, a value is kept as it came.
 */
function fewValues(): (v: string | null) => string | null {
  const values = new Map<string, string>();
  return (v) => {
    if (v === null) return null;
    const known = values.get(v);
    if (known !== undefined) return known;
    if (values.size < FEW_VALUES) values.set(v, v);
    return v;
  };
}
const FEW_VALUES = 256;

/** One session's records folded whole (tests, small sessions): sessionFolder() fed each in turn. */
export function foldSession(records: Iterable<FoldRecord>, session?: string): SessionFold {
  const folder = sessionFolder(session);
  for (const r of records) folder.add(r);
  return folder.finish();
}

/**
 * A session's fold, fed its records in fold order one at a time: a record the fold does not keep
 * (most are not: calls, responses, closes) is garbage once added, so a session 85k records long is
 * not held whole. What a session keeps is its emissions (lanes are known only at its end; not with
 * `keepEmissions: false`), its accepted upgrades, and its rows.
 */
export interface SessionFolder {
  add(r: FoldRecord): void;
  finish(): SessionFold;
  /**
   * The fold, its event rows made from the emissions given again (every record isEmission took, in the
   * order they were added) as they are iterated. The folder made with `keepEmissions: false` has only this.
   */
  finishStreamed(emissions: Iterable<FoldRecord>): StreamedFold;
}

export function sessionFolder(session?: string, opts: { keepEmissions?: boolean } = {}): SessionFolder {
  const keepEmissions = opts.keepEmissions ?? true;
  const incarnations: IncarnationRow[] = [];
  const streams = new Map<string, StreamRow>();
  // Kept beside the rows, which are the fold's output as they are (a copy without them held a session's streams twice):
  /** The highest `sequence` logged for a stream, its lane once the session is folded. */
  const maxSequence = new Map<StreamRow, string>();
  /** The first upgrade whose new stream a stream is, until the stream's own stream.opened (if none comes, the stream inherits it). */
  const openedByUpgrade = new Map<StreamRow, OpeningUpgrade>();
  const noteSequence = (s: StreamRow, sequence: string | null) => {
    if (sequence === null) return;
    const max = maxSequence.get(s);
    if (max === undefined || sequence > max) maxSequence.set(s, sequence);
  };
  const emitted: Emission[] = []; // event.sent and request.sent with event_id, in order (keepEmissions)
  // stream \0 event_id of every request.sent naming an event, and those an event.sent carried: a set of
  // every event.sent's was 40 MB of a session 538k events long
  const requestSentKeys = new Set<string>();
  const carried = new Set<string>();
  const requestEvents = new Map<string, Pick<Emission, 'request_id' | 'method'>>(); // event_id → first request.sent naming it
  const requests: RequestRow[] = [];
  const latestSend = new Map<string, RequestRow>();
  /** Requests a request.reissued began, until a request.sent of the fresh id takes their place. */
  const reissuedRows = new Set<RequestRow>();
  const accepted: AcceptedUpgrade[] = [];
  const emitters = new EventEmitters();
  const few = fewValues();

  const streamRow = (id: string) => {
    let s = streams.get(id);
    if (!s) {
      s = {
        stream: id, lane: id, via: null, opened_id: null, opened_ts: null, node: null, conn: null, principal: null,
        closed_id: null, closed_ts: null, close_reason: null, fenced_id: null, fenced_ts: null,
        superseded_id: null, superseded_ts: null,
      };
      streams.set(id, s);
    }
    return s;
  };

  // Incarnations whose owner no record has named yet: the next principal logged owns them all.
  let ownerless: IncarnationRow[] = [];
  const add = (r: FoldRecord): void => {
    if (r.principal !== null && ownerless.length > 0) {
      for (const inc of ownerless) inc.owner ??= r.principal;
      ownerless = [];
    }
    if (r.kind === 'upgrade') {
      // rules.md v2: the new stream of an upgrade that mints a session belongs to the minted session. Folding
      // the presented session, it is not ours; folding the minted one, the upgrade only opened it.
      const mintsOther = r.new_session != null && r.new_session !== r.session;
      const mintedHere = mintsOther && session !== undefined && r.new_session === session;
      if (mintsOther && !mintedHere && session !== undefined) return;
      if (r.new_stream !== null) {
        const s = streamRow(r.new_stream);
        noteSequence(s, r.sequence);
        if (s.opened_id === null && !openedByUpgrade.has(s)) {
          openedByUpgrade.set(s, { id: r.id, ts_ms: r.ts_ms, node: r.node, conn: r.conn, principal: r.principal });
        }
      }
      if (!mintedHere && ok(r.status) && (r.decision === 'resume' || r.decision === 'attach')) {
        let targets = NO_TARGETS;
        if (r.decision === 'resume') {
          const emitter = r.last_event_id === null ? undefined : emitters.last(r.last_event_id);
          // literals: an array pushed to holds room for 16
          targets = r.stream === null ? (emitter === undefined ? NO_TARGETS : [emitter]) : emitter === undefined ? [r.stream] : [r.stream, emitter];
        }
        accepted.push({ id: r.id, ts_ms: r.ts_ms, decision: r.decision === 'resume' ? 'resume' : 'attach', new_stream: r.new_stream, targets });
      }
      return;
    }
    if (r.stream !== null) {
      const s = streamRow(r.stream);
      noteSequence(s, r.sequence);
      if (r.kind === 'stream.opened' && s.opened_id === null) {
        Object.assign(s, { via: few(r.via), opened_id: r.id, opened_ts: r.ts_ms, node: few(r.node), conn: r.conn, principal: few(r.principal) });
        openedByUpgrade.delete(s);
      } else if (r.kind === 'stream.closed' && s.closed_id === null) {
        Object.assign(s, { closed_id: r.id, closed_ts: r.ts_ms, close_reason: few(r.reason) });
      } else if (r.kind === 'stream.fenced' && s.fenced_id === null) {
        Object.assign(s, { fenced_id: r.id, fenced_ts: r.ts_ms });
      }
    }
    switch (r.kind) {
      case 'session.created':
        incarnations.push({
          created_id: r.id, created_ts: r.ts_ms, incarnation: r.incarnation, node: r.node, owner: r.principal,
          ended_id: null, ended_ts: null, ended_how: null, log_evicted: null,
        });
        if (r.principal === null) ownerless.push(incarnations[incarnations.length - 1]!);
        break;
      case 'session.terminated':
      case 'session.evicted': {
        // An end belongs to the latest creation before it; an incarnation ends at its first end.
        const inc = incarnations[incarnations.length - 1];
        if (inc && inc.ended_id === null) {
          inc.ended_id = r.id;
          inc.ended_ts = r.ts_ms;
          inc.ended_how = r.kind === 'session.terminated' ? 'terminated' : 'evicted';
          inc.log_evicted = r.log_evicted ?? 1;
        }
        break;
      }
      case 'event.sent':
        if (r.event_id !== null && r.stream !== null) {
          if (keepEmissions) emitted.push(emission(r));
          const key = carrierKey(r);
          if (requestSentKeys.has(key)) carried.add(key);
          emitters.note(r.event_id, streams.get(r.stream)!.stream);
        }
        break;
      case 'request.sent': {
        if (r.event_id !== null) {
          if (keepEmissions) emitted.push(emission(r));
          const key = carrierKey(r);
          requestSentKeys.add(key);
          if (emitters.emittedOn(r.event_id, `${r.stream}`)) carried.add(key);
          if (!requestEvents.has(r.event_id)) requestEvents.set(r.event_id, { request_id: r.request_id, method: few(r.method) });
        }
        if (r.request_id === null) break;
        // A server that logs the re-issue's own send: that send is the row the re-issue began.
        const reissued = latestSend.get(r.request_id);
        if (reissued !== undefined && reissuedRows.has(reissued) && reissued.resolved_ts === null && reissued.stream === r.stream) {
          reissuedRows.delete(reissued);
          Object.assign(reissued, { sent_id: r.id, sent_ts: r.ts_ms, method: few(r.method) ?? reissued.method, event_id: r.event_id });
          break;
        }
        const row: RequestRow = {
          request_id: r.request_id, sent_id: r.id, sent_ts: r.ts_ms, stream: r.stream, method: few(r.method), event_id: r.event_id,
          answered_id: null, answered_ts: null, cancelled_id: null, reissued_id: null, timed_out_id: null, resolved_ts: null,
        };
        requests.push(row);
        latestSend.set(r.request_id, row);
        break;
      }
      case 'request.answered':
      case 'request.cancelled':
      case 'request.reissued':
      case 'request.timed_out': {
        // Each resolution belongs to the latest send of that id before it; the first of each kind counts.
        const q = r.request_id === null ? undefined : latestSend.get(r.request_id);
        if (q) {
          if (r.kind === 'request.answered') {
            if (ok(r.status) && q.answered_id === null) Object.assign(q, { answered_id: r.id, answered_ts: r.ts_ms });
          } else if (r.kind === 'request.cancelled') q.cancelled_id ??= r.id;
          else if (r.kind === 'request.reissued') q.reissued_id ??= r.id;
          else q.timed_out_id ??= r.id;
          if (r.kind !== 'request.timed_out' && (r.kind !== 'request.answered' || ok(r.status)) && q.resolved_ts === null) q.resolved_ts = r.ts_ms;
        }
        // log-format.md: re-issued "on another stream under a fresh id": the fresh id is a request
        // sent on that stream now, pending like any other until it is answered, cancelled or timed out.
        if (r.kind === 'request.reissued' && r.new_request_id !== null && r.stream !== null) {
          const row: RequestRow = {
            request_id: r.new_request_id, sent_id: r.id, sent_ts: r.ts_ms, stream: r.stream, method: q?.method ?? null, event_id: null,
            answered_id: null, answered_ts: null, cancelled_id: null, reissued_id: null, timed_out_id: null, resolved_ts: null,
          };
          requests.push(row);
          latestSend.set(r.new_request_id, row);
          reissuedRows.add(row);
        }
        break;
      }
    }
  };

  /** The rows but the events', once every record is added: lanes linked, supersession marked. */
  const finishStructure = (): Omit<SessionFold, 'events'> => {
    for (const [s, sequence] of maxSequence) s.lane = sequence;
    // A stream whose response came from an upgrade inherits the upgrade's via (GET), node and connection.
    for (const [s, u] of openedByUpgrade) {
      Object.assign(s, { via: s.via ?? 'get', opened_id: u.id, opened_ts: u.ts_ms, node: s.node ?? u.node, conn: s.conn ?? u.conn, principal: s.principal ?? u.principal });
    }
    maxSequence.clear();
    openedByUpgrade.clear();
    linkLineages(streams, accepted);
    markSuperseded(streams, accepted);
    return { incarnations, streams: [...streams.values()], requests };
  };

  /** Makes the session's event rows, fed its emissions in order: a request.sent an event.sent carried is not a row of its own. */
  const eventRows = () => {
    const lanePos = new Map<string, number>();
    return (r: Emission): EventRow | undefined => {
      if (r.kind === 'request.sent' && carried.has(carrierKey(r))) return undefined;
      const s = streams.get(r.stream!);
      if (!s) return undefined;
      const pos = (lanePos.get(s.lane) ?? 0) + 1;
      lanePos.set(s.lane, pos);
      let requestId = r.kind === 'request.sent' ? r.request_id : r.rpc_kind === 'request' ? r.rpc_id : null;
      let method = r.method;
      if (requestId === null) {
        const q = requestEvents.get(r.event_id!);
        if (q) {
          requestId = q.request_id;
          method ??= q.method;
        }
      }
      return { id: r.id, stream: s.stream, lane: s.lane, event_id: r.event_id!, ts_ms: r.ts_ms, lane_pos: pos, attached: r.attached ?? 1, request_id: requestId, method };
    };
  };

  const finish = (): SessionFold => {
    if (!keepEmissions) throw new Error('this fold keeps no emissions: finishStreamed() it');
    const structure = finishStructure();
    const rowOf = eventRows();
    const events: EventRow[] = [];
    for (let i = 0; i < emitted.length; i++) {
      const r = emitted[i]!;
      // Let go as its row is made: a long session's emissions and rows are not both held whole.
      emitted[i] = RELEASED;
      const row = rowOf(r);
      if (row) events.push(row);
    }
    return { ...structure, events };
  };

  const finishStreamed = (emissions: Iterable<FoldRecord>): StreamedFold => {
    emitted.length = 0;
    const structure = finishStructure();
    function* events(): Generator<EventRow> {
      const rowOf = eventRows();
      for (const r of emissions) {
        if (!isEmission(r)) continue;
        const row = rowOf(r);
        if (row) yield row;
      }
    }
    return { ...structure, events: { [Symbol.iterator]: events } };
  };

  return { add, finish, finishStreamed };
}

/**
 * An accepted resumption continues the resumed stream on a new response: the
 * new stream joins the old one's lane (its lineage), chains included.
 */
function linkLineages(streams: Map<string, StreamRow>, accepted: AcceptedUpgrade[]): void {
  // Each lane a group that knows its members, merged smaller into larger and relabelled at the end: relabelling
  // every stream of the session per resumption was quadratic in a session thousands of reconnects long.
  interface Lane { label: string; members: StreamRow[] }
  const laneOf = new Map<StreamRow, Lane>();
  const byLabel = new Map<string, Lane>();
  for (const s of streams.values()) {
    let lane = byLabel.get(s.lane);
    if (!lane) byLabel.set(s.lane, (lane = { label: s.lane, members: [] }));
    lane.members.push(s);
    laneOf.set(s, lane);
  }
  for (const u of accepted) {
    if (u.decision !== 'resume' || u.new_stream === null) continue;
    const resumed = u.targets[0];
    if (resumed === undefined || resumed === u.new_stream) continue;
    const fromStream = streams.get(resumed);
    const toStream = streams.get(u.new_stream);
    if (fromStream === undefined || toStream === undefined) continue;
    const from = laneOf.get(fromStream)!;
    const to = laneOf.get(toStream)!;
    if (from === to) continue;
    // the merged lane keeps the resumed stream's label, whichever group's members move
    const [big, small] = from.members.length >= to.members.length ? [from, to] : [to, from];
    for (const m of small.members) {
      big.members.push(m);
      laneOf.set(m, big);
    }
    small.members = [];
    big.label = from.label;
  }
  for (const [s, lane] of laneOf) s.lane = lane.label;
}

/**
 * Superseded (rules.md): an accepted resumption supersedes the stream it
 * resumes and the stream that emitted last_event_id; an accepted attach
 * supersedes every earlier GET stream of the session. An upgrade never
 * supersedes the stream it opens (a stream id reused across a resumption).
 * A resumption of a stream an earlier resumption already superseded also
 * supersedes that lineage's live head: the stream the latest resumption of the
 * chain opened (a client that resumes from one position twice, both accepted,
 * leaves the first new stream writing beside the second: README, decisions).
 */
function markSuperseded(streams: Map<string, StreamRow>, accepted: AcceptedUpgrade[]): void {
  // how each lineage (lane) began: the via of its first-opened stream
  const laneVia = new Map<string, string | null>();
  const firsts = new Map<string, StreamRow>();
  for (const s of streams.values()) {
    if (s.opened_id === null) continue;
    const f = firsts.get(s.lane);
    if (!f || before({ ts: s.opened_ts!, id: s.opened_id }, { ts: f.opened_ts!, id: f.opened_id! })) firsts.set(s.lane, s);
  }
  for (const [lane, s] of firsts) laneVia.set(lane, s.via);
  // The GET lineages' streams in the order they opened, swept once by the attaches (in log order): an attach
  // supersedes every one opened before it, so each is marked by the first attach after it, not rechecked per attach.
  const standalone = [...streams.values()]
    .filter((s) => s.opened_id !== null && isStandaloneLineage(laneVia.get(s.lane)))
    .sort((a, b) => (before({ ts: a.opened_ts!, id: a.opened_id! }, { ts: b.opened_ts!, id: b.opened_id! }) ? -1 : 1));
  let next = 0;
  let spared: StreamRow[] = []; // opened before an attach that opened it again (its new stream): the next attach marks them
  // A stream a resumption superseded → the stream it opened, pointed on to the chain's head as heads are found
  // (path compression: a client resuming from one position a thousand times walks no chain a thousand long).
  const successor = new Map<StreamRow, StreamRow>();
  const headOf = (s: StreamRow): StreamRow => {
    let head = s;
    const path = new Set<StreamRow>(); // a stream id reused as a later resumption's new stream can close a loop
    for (let next = successor.get(head); next !== undefined && !path.has(next); next = successor.get(head)) {
      path.add(head);
      head = next;
    }
    for (const p of path) if (p !== head) successor.set(p, head);
    return head;
  };
  for (const u of accepted) {
    const mark = (s: StreamRow | undefined) => {
      if (!s || s.stream === u.new_stream || s.superseded_id !== null) return;
      s.superseded_id = u.id;
      s.superseded_ts = u.ts_ms;
    };
    if (u.decision === 'resume') {
      const heads: StreamRow[] = [];
      for (const t of u.targets) {
        const s = streams.get(t);
        if (s !== undefined && successor.has(s)) heads.push(headOf(s));
      }
      for (const t of u.targets) mark(streams.get(t));
      for (const h of heads) mark(h);
      const opened = u.new_stream === null ? undefined : streams.get(u.new_stream);
      if (opened !== undefined) {
        for (const t of u.targets) {
          const s = streams.get(t);
          if (s !== undefined && s.superseded_id === u.id) successor.set(s, opened);
        }
        for (const h of heads) if (h.superseded_id === u.id) successor.set(h, opened);
      }
    } else {
      const at = { ts: u.ts_ms, id: u.id };
      const due = spared;
      spared = [];
      for (; next < standalone.length && before({ ts: standalone[next]!.opened_ts!, id: standalone[next]!.opened_id! }, at); next++) due.push(standalone[next]!);
      for (const s of due) {
        mark(s);
        if (s.superseded_id === null) spared.push(s);
      }
    }
  }
}
