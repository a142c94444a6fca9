// Random session logs for the property tests: fast-check draws commands,
// `buildLog` turns them into well-formed records for session S1 (event ids
// are a counter, so emission order is numeric order).

import fc from 'fast-check';
import type { EngineRecord, EngineRequest, Policy } from '../../src/engine/index.js';
import { T0 } from './log.js';

const STREAMS = ['g1', 'g2', 'p1'] as const;
type StreamName = (typeof STREAMS)[number];
const viaOf = (s: StreamName) => (s.startsWith('g') ? 'get' : 'post');

export type Command =
  | { t: 'create'; node?: string; principal?: string }
  | { t: 'stateChange' | 'terminate' }
  | { t: 'evict'; logEvicted?: boolean }
  | { t: 'open' | 'close' | 'fence'; stream: StreamName; node?: string }
  | { t: 'emit'; stream: StreamName; isRequest: boolean; attached: boolean }
  | { t: 'emitOnUpgraded'; pick: number; isRequest: boolean; attached: boolean }
  | { t: 'requestSent'; stream: StreamName; withEvent: boolean }
  | { t: 'answer'; pick: number; status: number }
  | { t: 'cancel' | 'timeout'; pick: number }
  | { t: 'reissue'; pick: number; stream: StreamName }
  | { t: 'trim'; stream?: StreamName; pick: number }
  | { t: 'resumeUpgrade'; pick: number; withStream: boolean; status: number; node?: string }
  | { t: 'attachUpgrade'; status: number; node?: string };

const node = fc.constantFrom(undefined, undefined, 'n1', 'n2');
const stream = fc.constantFrom(...STREAMS);
const pick = fc.nat(50);
const upgradeStatus = fc.constantFrom(200, 200, 409);

const creation = fc.record({ t: fc.constant('create' as const), node, principal: fc.constantFrom(undefined, 'alice') });

// Weighted so that most logs stay live long enough to be resumed: an end or a
// re-creation is rare, emissions and stream churn are common.
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 1, arbitrary: creation },
  { weight: 1, arbitrary: fc.oneof(fc.record({ t: fc.constant('terminate' as const) }), fc.record({ t: fc.constant('evict' as const), logEvicted: fc.constantFrom(undefined, false) })) },
  { weight: 6, arbitrary: fc.record({ t: fc.constant('stateChange' as const) }) },
  { weight: 24, arbitrary: fc.record({ t: fc.constantFrom('open' as const, 'close' as const, 'fence' as const), stream, node }) },
  { weight: 60, arbitrary: fc.record({ t: fc.constant('emit' as const), stream, isRequest: fc.boolean(), attached: fc.boolean() }) },
  // on a stream an accepted resume or attach opened: a resume's continues its stream's lane, an attach's does not
  { weight: 20, arbitrary: fc.record({ t: fc.constant('emitOnUpgraded' as const), pick, isRequest: fc.boolean(), attached: fc.boolean() }) },
  { weight: 16, arbitrary: fc.record({ t: fc.constant('requestSent' as const), stream, withEvent: fc.boolean() }) },
  { weight: 16, arbitrary: fc.record({ t: fc.constant('answer' as const), pick, status: fc.constantFrom(200, 202, 404) }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constantFrom('cancel' as const, 'timeout' as const), pick }) },
  { weight: 6, arbitrary: fc.record({ t: fc.constant('reissue' as const), pick, stream }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant('trim' as const), stream: fc.constantFrom(undefined, ...STREAMS), pick }) },
  { weight: 16, arbitrary: fc.record({ t: fc.constant('resumeUpgrade' as const), pick, withStream: fc.boolean(), status: upgradeStatus, node }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant('attachUpgrade' as const), status: upgradeStatus, node }) },
);

/**
 * Commands, each with the milliseconds that pass before it. Nine logs in ten open with a
 * session.created; the tenth starts mid-session.
 */
export const commands = fc
  .tuple(fc.option(creation, { freq: 10, nil: undefined }), fc.array(fc.tuple(command, fc.integer({ min: 0, max: 20_000 })), { maxLength: 40 }))
  .map(([first, rest]): [Command, number][] => (first ? [[first, 0], ...rest] : rest));

export interface RequestDraw {
  sessionId: 'S1' | 'S2' | null;
  lastEvent: { kind: 'none' } | { kind: 'emitted'; pick: number } | { kind: 'never'; id: string };
  node?: string;
  principal?: string;
  isInitialize: boolean;
  delayMs: number;
}

export const requestDraw: fc.Arbitrary<RequestDraw> = fc.record({
  sessionId: fc.oneof({ weight: 8, arbitrary: fc.constant('S1' as const) }, fc.constant('S2' as const), fc.constant(null)),
  lastEvent: fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('emitted' as const), pick }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('never' as const), id: fc.constantFrom('999999', 'x') }) },
  ),
  node,
  principal: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(undefined, 'alice') }, fc.constant('mallory')),
  isInitialize: fc.boolean(),
  delayMs: fc.integer({ min: 0, max: 200_000 }),
});

export const policyDraw: fc.Arbitrary<Partial<Policy>> = fc.record({
  retention: fc.oneof(
    fc.constant('as-logged' as const),
    fc.record({ maxAgeMs: fc.integer({ min: 0, max: 120_000 }) }),
    fc.record({ maxEvents: fc.integer({ min: 0, max: 10 }) }),
  ),
  unresumable: fc.constantFrom('reject' as const, 'reset' as const),
  pendingOnAttach: fc.constantFrom('reemit' as const, 'cancel' as const),
});

export interface GeneratedLog {
  records: EngineRecord[];
  /** Every event id emitted, in order, whatever the incarnation. */
  emittedIds: string[];
  endMs: number;
}

export function buildLog(draws: [Command, number][]): GeneratedLog {
  const records: EngineRecord[] = [];
  const emitted: { id: string; stream: string }[] = [];
  const requestIds: string[] = [];
  let openedInSegment = new Set<string>();
  let emittedInSegment: { id: string; stream: string }[] = [];
  let upgradedInSegment: string[] = [];
  let ts = T0;
  let upgrades = 0;
  const push = (kind: string, fields: Partial<EngineRecord> = {}) => records.push({ kind, tsMs: ts, session: 'S1', ...fields });
  const open = (s: StreamName, node?: string) => {
    push('stream.opened', { stream: s, via: viaOf(s), node });
    openedInSegment.add(s);
  };
  const newEvent = (s: string) => {
    if (!openedInSegment.has(s)) open(s as StreamName);
    const event = { id: String(emitted.length + 1), stream: s };
    emitted.push(event);
    emittedInSegment.push(event);
    return event.id;
  };
  const newRequest = () => {
    requestIds.push(`r${requestIds.length + 1}`);
    return requestIds.at(-1)!;
  };
  const pickFrom = <T>(items: T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

  for (const [c, delay] of draws) {
    ts += delay;
    switch (c.t) {
      case 'create':
        push('session.created', { node: c.node, principal: c.principal });
        openedInSegment = new Set();
        emittedInSegment = [];
        upgradedInSegment = [];
        break;
      case 'stateChange':
        push('session.state_changed', { aspect: 'capabilities' });
        break;
      case 'terminate':
        push('session.terminated');
        break;
      case 'evict':
        push('session.evicted', { logEvicted: c.logEvicted });
        break;
      case 'open':
        open(c.stream, c.node);
        break;
      case 'close':
        push('stream.closed', { stream: c.stream });
        break;
      case 'fence':
        push('stream.fenced', { stream: c.stream });
        break;
      case 'emit': {
        const eventId = newEvent(c.stream);
        const rpc = c.isRequest ? { rpcKind: 'request', rpcId: newRequest() } : { rpcKind: 'notification' };
        push('event.sent', { stream: c.stream, eventId, attached: c.attached, ...rpc });
        break;
      }
      case 'emitOnUpgraded': {
        const stream = pickFrom(upgradedInSegment, c.pick);
        if (stream === undefined) break;
        const eventId = newEvent(stream);
        const rpc = c.isRequest ? { rpcKind: 'request', rpcId: newRequest() } : { rpcKind: 'notification' };
        push('event.sent', { stream, eventId, attached: c.attached, ...rpc });
        break;
      }
      case 'requestSent': {
        const eventId = c.withEvent ? newEvent(c.stream) : undefined;
        if (!openedInSegment.has(c.stream)) open(c.stream);
        push('request.sent', { stream: c.stream, requestId: newRequest(), eventId, method: 'sampling/createMessage' });
        break;
      }
      case 'answer':
        push('request.answered', { requestId: pickFrom(requestIds, c.pick) ?? 'r0', status: c.status });
        break;
      case 'cancel':
        push('request.cancelled', { requestId: pickFrom(requestIds, c.pick) ?? 'r0' });
        break;
      case 'timeout':
        push('request.timed_out', { requestId: pickFrom(requestIds, c.pick) ?? 'r0' });
        break;
      case 'reissue': {
        const old = pickFrom(requestIds, c.pick) ?? 'r0';
        if (!openedInSegment.has(c.stream)) open(c.stream);
        push('request.reissued', { requestId: old, newRequestId: newRequest(), stream: c.stream });
        break;
      }
      case 'trim': {
        // Mostly an id already emitted; sometimes one beyond, never seen emitted.
        const oldest = pickFrom(emitted, c.pick)?.id ?? String(c.pick);
        push('buffer.trimmed', { stream: c.stream, oldestRetained: c.pick % 7 === 0 ? String(emitted.length + 3) : oldest });
        break;
      }
      case 'resumeUpgrade': {
        // A resumption of an event of this incarnation, onto a fresh stream id.
        const event = pickFrom(emittedInSegment, c.pick);
        if (!event) break;
        push('upgrade', {
          lastEventId: event.id,
          stream: c.withStream ? event.stream : undefined,
          newStream: `u${++upgrades}`,
          decision: c.status === 200 ? 'resume' : 'reject',
          status: c.status,
          node: c.node,
        });
        if (c.status === 200) {
          // the upgrade opened it: its events need no stream.opened of their own
          upgradedInSegment.push(`u${upgrades}`);
          openedInSegment.add(`u${upgrades}`);
        }
        break;
      }
      case 'attachUpgrade':
        push('upgrade', { lastEventId: null, newStream: `u${++upgrades}`, decision: c.status === 200 ? 'attach' : 'reject', status: c.status, node: c.node });
        if (c.status === 200) {
          // the upgrade opened it: its events need no stream.opened of their own
          upgradedInSegment.push(`u${upgrades}`);
          openedInSegment.add(`u${upgrades}`);
        }
        break;
    }
  }
  return { records, emittedIds: emitted.map((e) => e.id), endMs: ts };
}

export function toRequest(draw: RequestDraw, log: GeneratedLog): EngineRequest {
  // Emitted ids are drawn mostly from the last few, as a reconnecting client holds a recent one.
  const ids = log.emittedIds;
  const recent = (pick: number) => ids[ids.length - 1 - (pick % Math.min(ids.length, pick % 3 === 0 ? ids.length : 6))] ?? '1';
  const lastEventId = draw.lastEvent.kind === 'none' ? null : draw.lastEvent.kind === 'never' ? draw.lastEvent.id : recent(draw.lastEvent.pick);
  return {
    sessionId: draw.sessionId,
    lastEventId,
    tsMs: log.endMs + draw.delayMs,
    node: draw.node,
    principal: draw.principal,
    isInitialize: draw.isInitialize,
  };
}
