/**
 * The embedded resumption engine: the decision an MCP Streamable HTTP server takes on every
 * reconnect (`Mcp-Session-Id` x `Last-Event-ID`), as a pure function of the session's logged
 * records and a {@link Policy}. No I/O, no clock, no randomness: time comes in on the records
 * and requests.
 *
 * The rules are those of a protocol revision ({@link REVISION_RULES}): the policy's
 * `protocolVersion`, or by default the request's or session's logged version, else 2025-11-25.
 * The revisions 2025-03-26, 2025-06-18 and 2025-11-25 have sessions and `Last-Event-ID`
 * resumption (2025-11-25 adds priming events and polling); under 2026-07-28 there are no
 * sessions, no GET stream and no resumption: a GET gets 405, `initialize` 400, anything else
 * is served on its own, and a broken response stream loses its request.
 *
 * Two ways to use it:
 * - functions: {@link createState} and {@link observe} per session id, then {@link decide};
 * - a server: {@link ResumptionEngine}, keyed by session id.
 *
 * @packageDocumentation
 */

export type { EngineRecord, EngineRequest, EngineDecision, DecisionClass, CheckCode, ReasonCode } from './types.js';

/**
 * The configurable part of the boundary (retention, fence grace, reject-or-reset, what an
 * attach does with pending requests, storm and duplicate-call thresholds, protocol revision),
 * its defaults, and {@link resolvePolicy} to fill and validate a partial one.
 */
export { DEFAULT_POLICY, resolvePolicy } from './policy.js';
export type { Policy, Retention } from './policy.js';

/**
 * What each protocol revision allows, as data: `REVISION_RULES[revision]` says whether it has
 * the initialize handshake, sessions, the GET stream, resumption, priming events and polling,
 * and whether a client resumes or re-issues a request whose response stream broke.
 * `revisionOf(version)` places a logged version (a later date follows the latest known
 * revision before it); `revisionFor(policy, request, state)` is the one `decide` applies.
 */
export { PROTOCOL_REVISIONS, DEFAULT_REVISION, REVISION_RULES, isProtocolRevision, revisionOf } from './revisions.js';
export type { ProtocolRevision, RevisionRules } from './revisions.js';

/**
 * Per-session-id state, fed by records in log order: incarnations, end, streams and their
 * lineages, events per lane, state changes, server-to-client requests, upgrades.
 */
export { createState, observe } from './state.js';
export type { EngineState, Incarnation, StreamInfo, StreamEnd, EmittedEvent, ServerRequest, SessionEnd, ClientCall, CallResponse } from './types.js';

/**
 * `decide(state, request, policy)`: the decision table, under the revision `revisionFor` picks.
 * Under a revision without sessions (2026-07-28): a GET is rejected 405
 * `method_not_allowed`, an initialize 400 `initialize_unsupported`, any other request is
 * `fresh` 200 `stateless_request` (served on its own: no session minted, nothing replayed,
 * `Last-Event-ID` ignored). Otherwise: rejects 400 for a Last-Event-ID
 * without session, 404 for an unknown or ended session, 403 for another principal than the
 * owner; attaches (no replay, pending requests re-emitted or cancelled) without
 * Last-Event-ID; resumes only when the id is this incarnation's, retained, with no state
 * change or answered request in the replay window and every prior writer fenceable. An
 * unresumable id gets 409 `resumption_unavailable`, or a signalled reset under
 * `unresumable: 'reset'`. Unknown and foreign ids get that same 409 (not 404), since the
 * session itself exists. Replaying a log, decide each reconnect before observing its
 * `upgrade` record.
 */
export { decide, revisionFor, servingIncarnation, unresumable } from './decide.js';

/**
 * The client requests of an incarnation (`incarnation.calls`, from `call` records and
 * response events) and what became of each response: `callFate(call, rules)` is `delivered`
 * (written live on the body its request opened), `rescued` (the body broke first and an
 * accepted resumption brought it), `lost` (nothing brings it under those rules: without
 * resumption every broken stream loses its request) or `unknown` (no response event);
 * `reissueOf(call, rules)` says whether the client re-issues it under a new id and whether a
 * `tools/call` then runs twice.
 */
export { callFate, reissueOf } from './client-calls.js';
export type { CallFate } from './client-calls.js';

/** `requestFromUpgrade(record)`: the request a logged `upgrade` answered, to re-decide it. */
export { requestFromUpgrade } from './upgrade-request.js';

/** `isRetained(state, lane, eventId, atMs, policy)`: whether a position is still replayable. */
export { isRetained } from './retention.js';

/** Pending server-to-client requests of an incarnation, in the order sent. */
export { pendingRequests } from './pending-requests.js';

/** One engine for a whole server: `observe(record)`, `decide(request)`, `sessions()`. */
export { ResumptionEngine } from './resumption-engine.js';
