import {
  DEFAULT_REVISION,
  REVISION_RULES,
  callFate,
  reissueOf,
  revisionOf,
  type CallFate,
  type ClientCall,
  type ProtocolRevision,
} from '../engine/index.js';
import { evidenceInLogOrder, resolveEvidence, type ResolvedEvidence } from '../detect/evidence.js';
import { isoTime } from '../model/phrasing.js';
import type { Db } from '../store/db.js';
import type { SessionPoint } from '../replay/engine-replay.js';
import type { CallChange, CallOutcome, CallsWhatIf, SessionCalls } from './types.js';

// "Had these clients spoken the stateless revision, which calls would have
// been lost or run twice?" Every client request whose response stream broke
// before its response, judged twice: under the session's own revision (as
// logged: a resumption may have brought the response) and under the named one
// (2026-07-28: nothing resumes, the request is lost and re-issued).

interface RawCall {
  session: string | null;
  version: string | undefined;
  call: ClientCall;
  before: CallFate;
  after: CallFate;
  reissued: boolean;
  runTwice: boolean;
  ids: { call?: number; broke?: number; response?: number; rescuer?: number };
}

/** Collects, session by session as the replay finishes them, the calls whose response stream broke. */
export class BrokenCalls {
  readonly raw: RawCall[] = [];
  judged = 0;
  delivered = 0;
  unjudged = 0;

  constructor(readonly revision: ProtocolRevision) {}

  readonly onSession = (s: SessionPoint): void => {
    const before = REVISION_RULES[revisionOf(s.protocolVersion) ?? DEFAULT_REVISION];
    const after = REVISION_RULES[this.revision];
    for (const inc of s.state.incarnations) {
      // An initialize is no request a stateless client sends at all.
      for (const call of inc.calls.filter((c) => c.method !== 'initialize')) {
        const was = callFate(call, before);
        const would = callFate(call, after);
        if (was === 'unknown') {
          this.unjudged++;
          continue;
        }
        this.judged++;
        if (was === 'delivered') this.delivered++;
        if (was !== 'lost' && would !== 'lost') continue;
        const { reissued, runTwice } = reissueOf(call, after);
        const r = call.response!;
        this.raw.push({
          session: s.session,
          version: s.protocolVersion,
          call,
          before: was,
          after: would,
          reissued,
          runTwice,
          ids: {
            call: call.pos === undefined ? undefined : s.recordIdAt(call.pos),
            broke: r.broke === undefined ? undefined : s.recordIdAt(r.broke.pos),
            response: s.recordIdAt(r.pos),
            rescuer: r.rescuedBy === undefined ? undefined : s.recordIdAt(r.rescuedBy),
          },
        });
      }
    }
  };
}

/** What the evidence lines say, for the why. */
interface LineFacts {
  kind: string;
  stream: string | null;
  reason: string | null;
  decision: string | null;
  last_event_id: string | null;
  event_id: string | null;
}

export function resolveBrokenCalls(db: Db, collected: BrokenCalls): CallsWhatIf {
  const ids = collected.raw.flatMap((c) => Object.values(c.ids).filter((id): id is number => id !== undefined));
  const refs = resolveEvidence(db, ids);
  const facts = lineFacts(db, ids);
  const bySession = new Map<string | null, SessionCalls>();
  const ordered = [...collected.raw].sort((a, b) => a.call.tsMs - b.call.tsMs || (a.ids.response ?? 0) - (b.ids.response ?? 0));
  for (const c of ordered) {
    let entry = bySession.get(c.session);
    if (!entry) {
      entry = { session: c.session, protocol_version: c.version ?? null, lost: 0, reissued: 0, run_twice: 0, rescued: 0, calls: [] };
      bySession.set(c.session, entry);
    }
    entry.lost += c.after === 'lost' ? 1 : 0;
    entry.reissued += c.reissued ? 1 : 0;
    entry.run_twice += c.runTwice ? 1 : 0;
    entry.rescued += c.after === 'lost' && c.before === 'rescued' ? 1 : 0;
    entry.calls.push(callChange(c, collected.revision, refs, facts));
  }
  return {
    protocol_version: collected.revision,
    judged: collected.judged,
    delivered: collected.delivered,
    unjudged: collected.unjudged,
    sessions: [...bySession.values()],
  };
}

function callChange(c: RawCall, revision: ProtocolRevision, refs: ResolvedEvidence, facts: Map<number, LineFacts>): CallChange {
  const ids = Object.values(c.ids).filter((id): id is number => id !== undefined);
  return {
    rpc_id: c.call.rpcId,
    method: c.call.method ?? null,
    tool: c.call.tool ?? null,
    at: isoTime(c.call.tsMs),
    before: outcome(c.before),
    after: outcome(c.after),
    reissued: c.reissued,
    run_twice: c.runTwice,
    rescued_by: rescuedBy(c, refs, facts),
    why: why(c, revision, refs, facts),
    evidence: evidenceInLogOrder(ids, refs),
  };
}

/** `unknown` never reaches here: a call without a response event is not judged. */
function outcome(f: CallFate): CallOutcome {
  return f === 'unknown' ? 'lost' : f;
}

/**
 * "p1 was closed (error) at T before the response (e2, written for replay); as logged, the
 * resumption from e1 at T brought it; with protocol 2026-07-28 nothing resumes a stream: the
 * request is lost, and the client re-issues it under a new id, which runs charge again unless
 * it is idempotent".
 */
function why(c: RawCall, revision: ProtocolRevision, refs: ResolvedEvidence, facts: Map<number, LineFacts>): string {
  const r = c.call.response!;
  const when = (id: number | undefined) => (id === undefined || !refs.has(id) ? 'an unlogged time' : isoTime(refs.get(id)!.tsMs));
  const broke = c.ids.broke === undefined ? undefined : facts.get(c.ids.broke);
  const stream = broke?.stream ?? r.stream ?? 'its stream';
  const parts: string[] = [];
  const how = r.broke?.how;
  const polled = how === 'closed' && broke?.reason === 'poll';
  if (how === 'unattached') parts.push(`no response body was live on ${stream} when its response ${r.eventId} was written, at ${when(c.ids.response)}`);
  else if (how === 'superseded') parts.push(`${stream} was superseded by a resumption at ${when(c.ids.broke)}, before the response ${r.eventId}`);
  else if (how === 'fenced') parts.push(`${stream} was fenced at ${when(c.ids.broke)}, before the response ${r.eventId}`);
  else if (polled) parts.push(`the server closed ${stream} for polling at ${when(c.ids.broke)}, before the response ${r.eventId}`);
  else parts.push(`${stream} was closed${broke?.reason ? ` (${broke.reason})` : ''} at ${when(c.ids.broke)}, before the response ${r.eventId}`);

  const rescuer = c.ids.rescuer === undefined ? undefined : facts.get(c.ids.rescuer);
  if (c.before === 'rescued') parts.push(`as logged, ${rescuerWords(rescuer)} at ${when(c.ids.rescuer)} brought it`);
  else parts.push(rescuer ? `as logged it was lost too: the revision ${c.version ?? 'logged'} resumes nothing` : 'as logged no resumption brought it either');

  const rules = REVISION_RULES[revision];
  if (c.after === 'lost') {
    const reissue = c.reissued
      ? `, and the client re-issues it under a new id${c.runTwice ? `, which runs ${c.call.tool ?? 'the tool'} again unless it is idempotent` : ''}`
      : '';
    // A revision that resumes, but sends no priming events: the client never had the id the rescue presented.
    const unprimed = rules.resumption && !rules.priming && c.before === 'rescued' && r.rescueNeedsPriming === true;
    const nothing = unprimed
      ? `nothing could resume ${stream}: ${revision} has no priming events, so the client held no event id of it (the rescue presented the priming event ${rescuer?.last_event_id ?? ''})`.replace(' )', ')')
      : rules.resumption
        ? 'nothing resumed the stream'
        : 'nothing resumes a stream';
    // Not "delivered": whether a stream held open instead would have lasted to the response (the poll is what
    // keeps a proxy's idle timeout from cutting it) is not in the log.
    const noPolling = polled && !rules.polling
      ? ` (${revision} has no polling: counted lost as a stream that broke, since whether a stream held open instead would have lasted to the response is not in the log)`
      : '';
    parts.push(`with protocol ${revision} ${nothing}: the request is lost${reissue}${noPolling}`);
  } else {
    parts.push(`with protocol ${revision} it is ${c.after}`);
  }
  return parts.join('; ');
}

function rescuedBy(c: RawCall, refs: ResolvedEvidence, facts: Map<number, LineFacts>): CallChange['rescued_by'] {
  const id = c.ids.rescuer;
  const f = id === undefined ? undefined : facts.get(id);
  if (id === undefined || !f || !refs.has(id)) return null;
  return { decision: f.decision ?? 'unknown', last_event_id: f.last_event_id, at: isoTime(refs.get(id)!.tsMs) };
}

function rescuerWords(f: LineFacts | undefined): string {
  if (f?.decision === 'resume') return `the resumption${f.last_event_id === null ? '' : ` from ${f.last_event_id}`}`;
  if (f?.decision === 'attach') return 'the attach';
  return 'an upgrade';
}

function lineFacts(db: Db, ids: number[]): Map<number, LineFacts> {
  if (ids.length === 0) return new Map();
  const rows = db
    .prepare('SELECT r.id, r.kind, r.stream, r.reason, r.decision, r.last_event_id, r.event_id FROM json_each(?) j JOIN records r ON r.id = j.value')
    .all(JSON.stringify([...new Set(ids)])) as (LineFacts & { id: number })[];
  return new Map(rows.map((r) => [r.id, r]));
}
