import type { NotKnowable } from '../../model/finding.js';
import type { EventRef, Reconnect } from '../facts/reconnects.js';
import { plural } from '../../model/phrasing.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';

// foreign-event-id: an accepted resumption whose Last-Event-ID, or a replayed
// event, belongs to another session, an earlier incarnation of the session id,
// or another stream lineage than the one resumed: a global or cross-stream
// replay. The first SSE id a proxy saw is not judged here: it may be a new
// event rather than a replayed one.
// Its SQL: queries/facts/reconnect-references.sql (own_id, other_session_id),
// read through detect/facts/reconnect-facts.ts. The engine replay asks the
// same question in queries/facts/foreign-last-event-ids.sql, live mode in
// src/live/context-needs.ts: a change to what "foreign" means changes all three.

interface Foreign {
  ref: EventRef;
  what: string;
  emitterId: number;
  /** The creation of the id again, where the event was an earlier incarnation's: without it the lines show a correct resumption. */
  recreatedId?: number;
}

function judgeForeignEventIds(facts: ReconnectFacts): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of facts.resumptions) {
    if (facts.isProxyOnly(r.session)) {
      notKnowable.push({
        rule: 'foreign-event-id',
        session: r.session,
        reason: `proxy log only: which session and stream sent the event ids ${r.session}'s resumptions name is not visible`,
      });
      continue;
    }
    const foreign: Foreign[] = [];
    for (const ref of [r.last, ...r.replays.filter((x) => x.role !== 'first_seen')]) {
      const f = foreignness(r, ref);
      if (f === 'unknowable') {
        notKnowable.push({
          rule: 'foreign-event-id',
          session: r.session,
          reason: `the log starts after ${r.session} was created: event ${ref.eventId} was sent by ${ref.elsewhere!.session}, but ${r.session} may have sent it before the log begins`,
        });
      } else if (f) foreign.push(f);
    }
    const lead = foreign[0];
    if (lead === undefined) continue;
    const more = new Set(foreign.slice(1).map((f) => f.ref.eventId).filter((id) => id !== lead.ref.eventId));
    const prefix = lead.ref.role === 'last_event_id' ? `resumed ${r.session} from event ${r.last.eventId}, which` : `resumed ${r.session} from event ${r.last.eventId} but replayed event ${lead.ref.eventId}, which`;
    findings.push({
      rule: 'foreign-event-id',
      session: r.session,
      atMs: r.atMs,
      message: `${prefix} ${lead.what}${more.size > 0 ? ` (and ${plural(more.size, 'more foreign event id')})` : ''}`,
      evidenceIds: [lead.emitterId, ...(lead.recreatedId !== undefined ? [lead.recreatedId] : []), lead.ref.namedBy, r.upgradeId],
    });
  }
  return { findings, notKnowable };
}

function foreignness(r: Reconnect, ref: EventRef): Foreign | 'unknowable' | undefined {
  if (ref.own === null) {
    // The session sends the id itself just after, on another clock: its own, sent before by a clock ahead.
    if (ref.ownLater !== null) return undefined;
    const other = ref.elsewhere;
    if (other === null) return undefined;
    if (other.how === 'earlier-incarnation') {
      return {
        ref,
        emitterId: other.recordId,
        ...(r.incarnationId !== null && { recreatedId: r.incarnationId }),
        what: `an earlier incarnation of ${r.session} sent on stream ${other.stream}, before the session id was created again: a replay across incarnations`,
      };
    }
    if (r.incarnationId === null) return 'unknowable';
    return { ref, emitterId: other.recordId, what: `session ${other.session} sent on stream ${other.stream}: a replay from another session's log` };
  }
  const resumedLane = r.resumedLane ?? r.last.own?.lane;
  if (resumedLane === undefined || ref.own.lane === resumedLane) return undefined;
  const resumed = r.stream ?? r.last.own!.stream;
  return { ref, emitterId: ref.own.recordId, what: `was sent on stream ${ref.own.stream}, not on the resumed stream ${resumed}: a cross-stream replay` };
}

export default defineRule({
  id: 'foreign-event-id',
  severity: 'error',
  family: 'replay-integrity',
  summary: 'A resumption replayed from another session, incarnation or stream.',
  seeds: ['000', '004'],
  explanation: {
    meaning:
      'A resumption was accepted although its Last-Event-ID, or an event replayed on it, belongs to another session, another incarnation of the session id, or another stream than the one resumed: the server replayed from a global or cross-stream log.',
    whyItBreaks:
      'Last-Event-ID is a position within one stream of one session and means nothing outside it. Replaying events of another stream or session delivers messages about state the client never had, and its answers to them reach request ids the server no longer knows (404, then retries).',
    shouldHave:
      'Scope the lookup to the presented session and to the stream that emitted the id, and reject a Last-Event-ID that does not belong to them with a distinct resumption error instead of falling back to a global log.',
  },
  live: { reads: ['event-id-owners'], settles: 'at-once', rejudges: ['event-id-senders'] },
  facts: [ReconnectFacts.of],
  detect: (ctx) => judgeForeignEventIds(ctx.shared(ReconnectFacts.of)),
});
