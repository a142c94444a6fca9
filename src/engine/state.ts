// What the engine knows about one session id, rebuilt from its log records in
// order. The state is data (Maps, arrays; the events in typed-array columns,
// event-log.ts, read through its methods) that a caller can clone or persist;
// `observe` mutates it in place.

import type { EmittedEvent, EngineRecord, EngineState, Incarnation } from './types.js';
import { isAcceptedUpgrade, markDead, observeUpgrade, openStream, touchStream } from './lineage.js';
import { noteCall, noteIdlessResponse, noteResponse, noteResumption } from './client-calls.js';
import { noteRequestSent, resolveRequest } from './pending-requests.js';
import { emptyTrimIndex, notePlaced, noteTrim } from './trim-index.js';
import { EventLog } from './event-log.js';
import { emissionLane } from './lanes.js';
import { setAside, takeUp } from './set-aside.js';
import { noteEmitted, noteIncarnations } from './emitters.js';
import { REVISION_RULES, revisionOf } from './revisions.js';

export function createState(): EngineState {
  return { nextPos: 0, incarnations: [] };
}

/** Feeds one record, in log order. Records of other kinds (`http`, ...) are ignored. */
export function observe(state: EngineState, record: EngineRecord): void {
  const pos = state.nextPos++;
  if (state.sessionId === undefined && record.session != null) state.sessionId = String(record.session);
  if (record.protocolVersion !== undefined) noteVersion(state, record.kind, record.protocolVersion);
  if (record.kind === 'session.created') {
    const replaced = state.incarnations.at(-1);
    state.incarnations.push(newIncarnation(record));
    if (replaced !== undefined) setAside(replaced);
    noteIncarnations(state);
    return;
  }
  const inc = incarnationFor(state, record);
  // A rejected reconnect's principal is whoever knocked, not the owner.
  if (inc.owner === undefined && record.principal !== undefined && (record.kind !== 'upgrade' || isAcceptedUpgrade(record))) {
    inc.owner = record.principal;
  }
  switch (record.kind) {
    case 'session.state_changed':
      inc.stateChanges.push({ pos, tsMs: record.tsMs, aspect: record.aspect });
      break;
    case 'session.terminated':
    case 'session.evicted':
      inc.ended ??= { kind: record.kind === 'session.evicted' ? 'evicted' : 'terminated', tsMs: record.tsMs, pos };
      if (record.kind === 'session.evicted' && record.logEvicted !== false) inc.logEvicted = true;
      break;
    case 'stream.opened':
      if (record.stream !== undefined) openStream(inc, record.stream, record, pos);
      break;
    case 'stream.closed':
      if (record.stream !== undefined) {
        const stream = touchStream(inc, record.stream, record, pos);
        stream.closed = true;
        markDead(inc, stream);
        stream.end ??= { how: 'closed', pos, ...(record.reason !== undefined && { reason: record.reason }) };
      }
      break;
    case 'stream.fenced':
      if (record.stream !== undefined) {
        const stream = touchStream(inc, record.stream, record, pos);
        stream.fenced = true;
        markDead(inc, stream);
        stream.end ??= { how: 'fenced', pos };
      }
      break;
    case 'event.sent': {
      const known = record.eventId != null && inc.events.has(String(record.eventId));
      const event = emit(state, inc, record, pos);
      if (event && !known && record.priming === true && event.laneIndex === 0) (inc.primingOpeners ??= new Set()).add(event.id);
      if (event && record.rpcKind === 'request' && record.rpcId != null) {
        noteRequestSent(inc, String(record.rpcId), record, event.id, pos);
      }
      // A repeated id (a fork) is not a second response.
      if (event && !known && record.rpcKind === 'response' && record.rpcId != null) noteResponse(inc, event, String(record.rpcId));
      // A stateless-era response carries no event id (2026-07-28): its request's fate still shows.
      if (record.eventId == null && record.rpcKind === 'response' && record.rpcId != null) {
        if (record.stream !== undefined) touchStream(inc, record.stream, record, pos);
        noteIdlessResponse(inc, record, pos, String(record.rpcId));
      }
      break;
    }
    case 'call':
      noteCall(inc, record, pos);
      break;
    case 'request.sent':
      if (record.requestId != null) noteRequestSent(inc, String(record.requestId), record, emit(state, inc, record, pos)?.id, pos);
      break;
    case 'request.answered':
      // Only a 2xx means the answer was taken; a 404 leaves the request pending.
      if (record.requestId != null && record.status !== undefined && record.status >= 200 && record.status < 300) {
        resolveRequest(inc, String(record.requestId), 'answered');
      }
      break;
    case 'request.cancelled':
      if (record.requestId != null) resolveRequest(inc, String(record.requestId), 'cancelled');
      break;
    case 'request.timed_out':
      if (record.requestId != null) resolveRequest(inc, String(record.requestId), 'timedOut');
      break;
    case 'request.reissued':
      if (record.requestId != null) {
        const old = resolveRequest(inc, String(record.requestId), 'reissued');
        if (record.newRequestId != null) {
          noteRequestSent(inc, String(record.newRequestId), { stream: record.stream, method: old.method }, undefined, pos);
        }
      }
      break;
    case 'buffer.trimmed':
      if (record.oldestRetained != null) {
        inc.trims.push({ stream: record.stream, oldestRetained: String(record.oldestRetained), pos, tsMs: record.tsMs });
        noteTrim(inc, record.stream, String(record.oldestRetained));
      }
      break;
    case 'upgrade':
      observeUpgrade(inc, record, pos);
      if (record.decision === 'resume' && record.lastEventId != null && isAcceptedUpgrade(record)) {
        if (record.newStream !== undefined && inc.primingOpeners?.has(String(record.lastEventId))) {
          const opened = inc.streams.get(record.newStream);
          if (opened) opened.resumedFromPriming = true;
        }
        noteResumption(inc, inc.events.get(String(record.lastEventId)), pos);
      }
      break;
  }
}

/** Records the first emission of an event id; a repeated id (a fork) keeps its first place. */
function emit(state: EngineState, inc: Incarnation, record: EngineRecord, pos: number): EmittedEvent | undefined {
  if (record.eventId == null) return undefined;
  const id = String(record.eventId);
  const known = inc.events.get(id);
  if (known) {
    inc.events.noteRepeat(id);
    return known;
  }
  const stream = record.stream === undefined ? undefined : touchStream(inc, record.stream, record, pos);
  // The sequence the event names, else its stream's lane, which a resumption continues (lanes.ts).
  const lane = emissionLane(inc, record.sequence, stream);
  const event = inc.events.add(id, { lane, stream: record.stream, pos, tsMs: record.tsMs, attached: record.attached !== false });
  notePlaced(inc, event);
  noteEmitted(state, inc, id);
  return event;
}

function newIncarnation(record?: EngineRecord): Incarnation {
  return {
    created: record !== undefined,
    nonce: record?.incarnation,
    createdTsMs: record?.tsMs,
    node: record?.node,
    owner: record?.principal,
    logEvicted: false,
    streams: new Map(),
    sequences: new Map(),
    lineages: new Map(),
    unsuperseded: new Map(),
    standaloneRoots: new Set(),
    live: new Map(),
    events: new EventLog(),
    stateChanges: [],
    trims: [],
    trimIndex: emptyTrimIndex(),
    requests: new Map(),
    sentUnresolved: new Set(),
    calls: [],
    callsByRpc: new Map(),
    awaitingRescue: new Map(),
  };
}

/** A record naming an incarnation nonce goes to that one; otherwise to the latest. */
function incarnationFor(state: EngineState, record: EngineRecord): Incarnation {
  if (record.incarnation !== undefined) {
    const named = state.incarnations.findLast((i) => i.nonce === record.incarnation);
    if (named) {
      takeUp(named);
      return named;
    }
  }
  const latest = state.incarnations.at(-1);
  if (latest) return latest;
  const implicit = newIncarnation();
  state.incarnations.push(implicit);
  return implicit;
}

/**
 * The session's revision, as the analyzer's session_versions view decides it: an initialize selects the legacy
 * revision it negotiated, which a session.created that logs a revision with sessions logs: that one, settled. Else
 * the first version a record other than a creation logs, where it is a revision with sessions (a creation may log
 * the one the client asked for); else its creation's. A version without sessions (2026-07-28) on a request that
 * presents the session says nothing of it: such a request has no session, the header is stale. (The view also
 * tells a proxy's inferred creation, which logs its request's version, from a server's; the engine sees no origin.)
 */
function noteVersion(state: EngineState, kind: string, version: string): void {
  if (state.protocolVersionFromRequest === true) return;
  const sessionless = isSessionless(version);
  if (kind !== 'session.created') {
    if (sessionless) return;
    state.protocolVersion = version;
    state.protocolVersionFromRequest = true;
  } else if (!sessionless) {
    state.protocolVersion = version;
    state.protocolVersionFromRequest = true;
  } else if (state.protocolVersion === undefined) {
    state.protocolVersion = version;
  }
}

function isSessionless(version: string): boolean {
  const revision = revisionOf(version);
  return revision !== undefined && !REVISION_RULES[revision].sessions;
}
