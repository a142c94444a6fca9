/**
 * The embedded resumption engine: the decision an MCP Streamable HTTP server takes on every
 * reconnect (`Mcp-Session-Id` x `Last-Event-ID`), as a pure function of the session's logged
 * records and a {@link Policy}. No I/O, no clock, no randomness: time comes in on the records
 * and requests.
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
 * attach does with pending requests, storm and duplicate-call thresholds), its defaults, and
 * {@link resolvePolicy} to fill and validate a partial one.
 */
export { DEFAULT_POLICY, resolvePolicy } from './policy.js';
export type { Policy, Retention } from './policy.js';

/**
 * Per-session-id state, fed by records in log order: incarnations, end, streams and their
 * lineages, events per lane, state changes, server-to-client requests, upgrades.
 */
export { createState, observe } from './state.js';
export type { EngineState, Incarnation, StreamInfo, EmittedEvent, ServerRequest, SessionEnd } from './types.js';

/**
 * `decide(state, request, policy)`: the decision table. Rejects 400 for a Last-Event-ID
 * without session, 404 for an unknown or ended session, 403 for another principal than the
 * owner; attaches (no replay, pending requests re-emitted or cancelled) without
 * Last-Event-ID; resumes only when the id is this incarnation's, retained, with no state
 * change or answered request in the replay window and every prior writer fenceable. An
 * unresumable id gets 409 `resumption_unavailable`, or a signalled reset under
 * `unresumable: 'reset'`. Unknown and foreign ids get that same 409 (not 404), since the
 * session itself exists. Replaying a log, decide each reconnect before observing its
 * `upgrade` record.
 */
export { decide, servingIncarnation } from './decide.js';

/** `requestFromUpgrade(record)`: the request a logged `upgrade` answered, to re-decide it. */
export { requestFromUpgrade } from './upgrade-request.js';

/** `isRetained(state, lane, eventId, atMs, policy)`: whether a position is still replayable. */
export { isRetained } from './retention.js';

/** Pending server-to-client requests of an incarnation, in the order sent. */
export { pendingRequests } from './pending-requests.js';

/** One engine for a whole server: `observe(record)`, `decide(request)`, `sessions()`. */
export { ResumptionEngine } from './resumption-engine.js';
