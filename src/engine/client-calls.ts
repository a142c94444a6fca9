// Client requests and the fate of their responses. Which revision a client
// speaks decides what a broken response stream costs: with resumption, a
// later `Last-Event-ID` resumption can still bring the response; without it
// (2026-07-28) the in-flight request is lost, and the client re-issues it
// under a new id. The engine notes, as the log goes by, whether each response
// was written live on the body its request opened, what broke that body
// first, and which accepted upgrade brought the response to the client.

import { lineageRoot } from './lineage.js';
import type { RevisionRules } from './revisions.js';
import type { CallResponse, ClientCall, EmittedEvent, EngineRecord, Incarnation } from './types.js';

/** A `call` record: a new request, or the call record of a response already seen (clock skew). */
export function noteCall(inc: Incarnation, record: EngineRecord, pos: number): void {
  if (record.rpcId == null) return;
  const rpcId = String(record.rpcId);
  const executed = record.executed ?? (record.status !== undefined && record.status >= 200 && record.status < 300);
  const known = inc.callsByRpc.get(rpcId);
  const call: ClientCall = known && known.pos === undefined ? known : { rpcId, executed, tsMs: record.tsMs };
  Object.assign(call, { pos, tsMs: record.tsMs, executed, method: record.method, tool: record.tool });
  if (call !== known) {
    inc.calls.push(call);
    inc.callsByRpc.set(rpcId, call);
  }
}

/** An `event.sent` with `rpc_kind: response`: the answer to the latest call with that id still unanswered. */
export function noteResponse(inc: Incarnation, event: EmittedEvent, rpcId: string): void {
  let call = inc.callsByRpc.get(rpcId);
  if (!call || call.response) {
    // A response with no call record still shows a request that the server ran.
    call = { rpcId, executed: true, tsMs: event.tsMs };
    inc.calls.push(call);
    inc.callsByRpc.set(rpcId, call);
  }
  const response = (call.response = responseFate(inc, event));
  if (!response.deliveredLive && response.rescuedBy === undefined) {
    const waiting = inc.awaitingRescue.get(event.lane) ?? [];
    inc.awaitingRescue.set(event.lane, waiting);
    waiting.push({ pos: event.pos, response });
  }
}

/** How a response without an SSE event id reads (2026-07-28 removed them). */
const NO_EVENT_ID = '(no event id)';

/**
 * A response `event.sent` without an id (a stateless-era server's): delivered or not on the body its request
 * opened, as one with an id. With no id no resumption can name it, so none rescues it.
 */
export function noteIdlessResponse(inc: Incarnation, record: EngineRecord, pos: number, rpcId: string): void {
  let call = inc.callsByRpc.get(rpcId);
  if (!call || call.response) {
    call = { rpcId, executed: true, tsMs: record.tsMs };
    inc.calls.push(call);
    inc.callsByRpc.set(rpcId, call);
  }
  const lane = record.sequence ?? record.stream ?? '';
  call.response = responseFate(inc, { id: NO_EVENT_ID, lane, stream: record.stream, pos, tsMs: record.tsMs, laneIndex: -1, attached: record.attached !== false });
}

function responseFate(inc: Incarnation, event: EmittedEvent): CallResponse {
  const base = { eventId: event.id, pos: event.pos, stream: event.stream };
  const stream = event.stream === undefined ? undefined : inc.streams.get(event.stream);
  if (!stream) return { ...base, deliveredLive: event.attached };
  const live = event.attached && stream.end === undefined;
  if (live && lineageRoot(inc, stream.id) === stream.id) return { ...base, deliveredLive: true };
  if (live) {
    // Written on a stream that continues an earlier one: the body the request opened broke first.
    const parent = stream.continues === undefined ? undefined : inc.streams.get(stream.continues);
    const broke = parent?.end ?? (stream.openedBy === undefined ? undefined : { how: 'superseded' as const, pos: stream.openedBy });
    const rescue = stream.openedBy === undefined ? {} : { rescuedBy: stream.openedBy, ...(stream.resumedFromPriming && { rescueNeedsPriming: true as const }) };
    return { ...base, deliveredLive: false, ...(broke && { broke }), ...rescue };
  }
  return { ...base, deliveredLive: false, broke: stream.end ?? { how: 'unattached', pos: event.pos } };
}

/**
 * An accepted resumption from `from` replays what its lane holds after it: every response
 * written there for replay, and not yet brought to the client, is rescued by it. The lane's
 * waiting responses are in lane order, so those after `from` are a tail.
 */
export function noteResumption(inc: Incarnation, from: EmittedEvent | undefined, pos: number): void {
  if (!from) return;
  const waiting = inc.awaitingRescue.get(from.lane);
  if (!waiting) return;
  const needsPriming = inc.primingOpeners?.has(from.id) === true;
  let keep = waiting.length;
  while (keep > 0 && waiting[keep - 1]!.pos > from.pos) {
    const response = waiting[--keep]!.response;
    response.rescuedBy = pos;
    if (needsPriming) response.rescueNeedsPriming = true;
  }
  waiting.length = keep;
}

/**
 * - `delivered`: its response came on the body the request opened;
 * - `rescued`: the body broke first, and a resumption (or attach) brought the response;
 * - `lost`: the body broke first and, under `rules`, nothing brings it: without resumption
 *   a broken stream loses its request whatever the log shows resumed, and without priming
 *   events a rescue from one (the client's only id of that stream) could not have been asked for;
 * - `unknown`: the log shows no response event (a plain JSON answer, or none).
 */
export type CallFate = 'delivered' | 'rescued' | 'lost' | 'unknown';

export function callFate(call: ClientCall, rules: RevisionRules): CallFate {
  const response = call.response;
  if (!response) return 'unknown';
  if (response.deliveredLive) return 'delivered';
  const askable = rules.priming || response.rescueNeedsPriming !== true;
  return rules.resumption && response.rescuedBy !== undefined && askable ? 'rescued' : 'lost';
}

/**
 * A lost call the client re-issues under a new id (where the revision says a broken stream
 * is re-issued, not resumed), and whether the server then runs it twice: a `tools/call` it
 * had executed, unless the tool is idempotent (which no log says).
 */
export function reissueOf(call: ClientCall, rules: RevisionRules): { reissued: boolean; runTwice: boolean } {
  const reissued = callFate(call, rules) === 'lost' && rules.brokenStream === 'reissue';
  return { reissued, runTwice: reissued && call.executed && call.method === 'tools/call' };
}
