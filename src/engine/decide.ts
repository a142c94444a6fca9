// The decision boundary of the seeds: branch on the combination of
// Mcp-Session-Id and Last-Event-ID. A session id is an identity across
// streams; an event id is a position within one stream. Neither stands in
// for the other.

import { DEFAULT_POLICY, type Policy } from './policy.js';
import type { EngineState, Incarnation } from './types.js';
import type { CheckCode, DecisionClass, EngineDecision, EngineRequest, ReasonCode } from './types.js';
import { lineageRoot, liveStandaloneRoots } from './lineage.js';
import { writerElsewhere, writerIdsNow } from './live-writers.js';
import { pendingRequests } from './pending-requests.js';
import { isEventRetained } from './retention.js';
import { emittedByAnother } from './emitters.js';
import { DEFAULT_REVISION, REVISION_RULES, revisionOf, type ProtocolRevision, type RevisionRules } from './revisions.js';

/**
 * Decides one reconnect. Pure: reads `state` (which may be undefined for a session id never
 * observed), never mutates it. `state` must be what is known just before the request; a
 * state recorded for another session id counts as none. The rules are those of the revision
 * {@link revisionFor} picks.
 */
export function decide(state: EngineState | undefined, request: EngineRequest, policy: Policy = DEFAULT_POLICY): EngineDecision {
  const rules = REVISION_RULES[revisionFor(policy, request, state)];
  const byRevision = answeredByRevision(request, rules);
  if (byRevision) return byRevision;
  const sessionId = headerValue(request.sessionId);
  const lastEventId = rules.resumption ? headerValue(request.lastEventId) : null;
  if (sessionId === null) {
    if (lastEventId !== null) return reject(400, 'event_id_without_session');
    return request.isInitialize ? outcome('fresh', 200, 'initialize', { newSession: true }) : reject(400, 'session_required');
  }
  const ownState = state && (state.sessionId === undefined || state.sessionId === sessionId) ? state : undefined;
  const inc = ownState && servingIncarnation(ownState, request);
  if (!ownState || !inc || inc.ended) return reject(404, 'session_not_found');
  if (request.principal !== undefined && inc.owner !== undefined && request.principal !== inc.owner) {
    return reject(403, 'principal_mismatch');
  }
  return lastEventId === null ? attach(inc, request, policy) : resume(ownState, inc, lastEventId, request, policy);
}

/**
 * The revision whose rules decide `request`: the policy's, unless it is `'as-logged'` (or
 * absent); then the request's own version, else the session's, else 2025-11-25. A logged
 * version that is not a known revision follows the known one before it (see revisionOf).
 */
export function revisionFor(policy: Policy, request: EngineRequest, state?: EngineState): ProtocolRevision {
  const chosen = policy.protocolVersion ?? 'as-logged';
  if (chosen !== 'as-logged') return chosen;
  const ownState = state && (state.sessionId === undefined || state.sessionId === headerValue(request.sessionId)) ? state : undefined;
  return revisionOf(request.protocolVersion) ?? revisionOf(ownState?.protocolVersion) ?? DEFAULT_REVISION;
}

/**
 * What a revision without the GET stream, the handshake or sessions answers before any
 * session is looked at: a GET is a 405, an initialize a 400 (a modern-only server rejects
 * it), and any other request is served on its own, with Mcp-Session-Id and Last-Event-ID
 * ignored and nothing minted or replayed.
 */
function answeredByRevision(request: EngineRequest, rules: RevisionRules): EngineDecision | undefined {
  const method = (request.httpMethod ?? (request.isInitialize ? 'POST' : 'GET')).toUpperCase();
  if (method === 'GET' && !rules.getStream) return reject(405, 'method_not_allowed');
  if (request.isInitialize && !rules.initialize) return reject(400, 'initialize_unsupported');
  if (!rules.sessions) return outcome('fresh', 200, 'stateless_request');
  return undefined;
}

/**
 * The incarnation that answers a request on its node: the latest created one, skipping those created
 * on another known node (sessions are not shared between nodes) unless the request's node shares the
 * store. Whatever reads the state behind a decision (evidence, what-if) asks this with the same request.
 */
export function servingIncarnation(state: EngineState, request: Pick<EngineRequest, 'node' | 'sharedStore'>): Incarnation | undefined {
  const node = request.sharedStore === true ? undefined : request.node;
  return state.incarnations.findLast((i) => i.created && (node === undefined || i.node === undefined || i.node === node));
}

/** Session resumption on a new stream: no replay; every pending request re-emitted or cancelled. */
function attach(inc: Incarnation, request: EngineRequest, policy: Policy): EngineDecision {
  const roots = liveStandaloneRoots(inc);
  if (writerElsewhere(inc, roots, request.node)) return unresumable(['prior_writer_unfenceable'], policy);
  const pending = pendingRequests(inc).map((r) => r.id);
  const reemit = policy.pendingOnAttach === 'reemit';
  const d = outcome('attach', 200, 'session_resumption', { reemit: reemit ? pending : [], cancel: reemit ? [] : pending });
  return withFence(d, writerIdsNow(inc, roots));
}

/** Stream resumption: replay after Last-Event-ID on its lane, if every check passes. */
function resume(state: EngineState, inc: Incarnation, lastEventId: string, request: EngineRequest, policy: Policy): EngineDecision {
  const checks: CheckCode[] = [];
  const event = inc.events.get(lastEventId);
  const emittedElsewhere = !event && emittedByAnother(state, inc, lastEventId);
  if (!event && !emittedElsewhere && !request.foreignSession) checks.push('unknown_event_id');
  if (emittedElsewhere || request.foreignSession) checks.push('foreign_event_id');
  if (!event) return unresumable(checks, policy);

  if (!isEventRetained(inc, event, request.tsMs, policy)) checks.push('position_evicted');
  // Changes are kept in log order: the latest tells whether any came after the position.
  if ((inc.stateChanges.at(-1)?.pos ?? -1) > event.pos) checks.push('state_changed_in_window');
  const replay = inc.events.after(event);
  if (replay.some((id) => isAnsweredRequest(inc, id))) checks.push('answered_request_in_window');
  const roots = event.stream === undefined ? [] : [lineageRoot(inc, event.stream)];
  if (writerElsewhere(inc, roots, request.node)) checks.push('prior_writer_unfenceable');
  if (checks.length > 0) return unresumable(checks, policy);

  return withFence(outcome('resume', 200, 'stream_resumption', { replay }), writerIdsNow(inc, roots));
}

function isAnsweredRequest(inc: Incarnation, eventId: string): boolean {
  const requestId = inc.events.get(eventId)?.requestId;
  return requestId !== undefined && inc.requests.get(requestId)?.answered === true;
}

/**
 * The decision fences every live prior writer (none is on another node, or it would not stand): listed when
 * `fence` is first read, as they were when it was decided. Every prior writer of a session whose server logs no
 * stream.closed is every earlier stream, and listing them per decision made its replay quadratic.
 */
function withFence(d: EngineDecision, ids: () => string[]): EngineDecision {
  let fence: string[] | undefined;
  Object.defineProperty(d, 'fence', {
    enumerable: true,
    configurable: true,
    get: () => (fence ??= ids()),
    set: (v: string[]) => {
      fence = v;
    },
  });
  return d;
}

/**
 * Unknown and foreign ids get the same 409 as an evicted window, not 404: the session
 * itself exists, and 404 tells a client its session is gone.
 */
export function unresumable(checks: CheckCode[], policy: Policy): EngineDecision {
  if (policy.unresumable === 'reset') {
    return outcome('fresh', 200, 'resumption_unavailable', { newSession: true, resetSignalled: true, checks });
  }
  return outcome('reject', 409, 'resumption_unavailable', { checks });
}

function reject(status: number, reason: ReasonCode): EngineDecision {
  return outcome('reject', status, reason, { checks: [reason] });
}

/** A decision with nothing to replay, re-emit, cancel or fence unless `parts` says so; arrays are never shared. */
function outcome(decision: DecisionClass, status: number, reason: ReasonCode, parts: Partial<EngineDecision> = {}): EngineDecision {
  return { decision, status, reason, replay: [], reemit: [], cancel: [], fence: [], newSession: false, resetSignalled: false, checks: [], ...parts };
}

/** An absent or empty header is no header; event ids are compared as strings. */
function headerValue(value: string | number | null | undefined): string | null {
  return value === null || value === undefined || value === '' ? null : String(value);
}
