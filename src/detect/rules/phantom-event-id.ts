import type { NotKnowable } from '../../model/finding.js';
import { compareNumeric, isDigits } from '../../model/event-order.js';
import { proxySawEmitted } from '../facts/proxy-view.js';
import { at, duration } from '../../model/phrasing.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../model/thresholds.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';
import type { Reconnect } from '../facts/reconnects.js';
import { eachQueryRow } from '../query-rows.js';

// phantom-event-id: an accepted resumption from a Last-Event-ID that no stream
// of any session in the log had emitted. Absence proves something only where
// the log covers the session from its creation, or where the id is numeric and
// above every id the session did emit; otherwise it is not knowable.

function judgePhantomEventIds(facts: ReconnectFacts): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  // The resumptions no emission places, in order: few, and those of sessions a server logged are asked about at once.
  const unplaced: Reconnect[] = [];
  for (const r of facts.resumptions) {
    if (r.last.own !== null || r.last.elsewhere !== null) continue;
    if (r.firstEmission === null || r.firstEmission.atMs - r.atMs > CLOCK_SKEW_ALLOWANCE_MS) unplaced.push(r);
  }
  const told = tellUnplaced(facts, unplaced.filter((r) => !facts.isProxyOnly(r.session)));
  for (const r of unplaced) {
    const later = r.firstEmission;
    const id = r.last.eventId;
    const finding = (message: string, evidenceIds: number[]): RawFinding => ({
      rule: 'phantom-event-id',
      session: r.session,
      atMs: r.atMs,
      message: later === null ? message : `${message}; it was first sent ${duration(later.atMs - r.atMs)} later, on ${later.stream} of ${later.session}`,
      evidenceIds: later === null ? evidenceIds : [...evidenceIds, later.recordId],
    });
    const more = told.get(r.upgradeId);
    if (facts.isProxyOnly(r.session)) {
      if (later === null && !proxySawEmitted(facts.proxy, r)) {
        notKnowable.push({
          rule: 'phantom-event-id',
          session: r.session,
          reason: `proxy log only: the proxy never saw event ${id} go by and cannot see what the server sent, so whether the resumption at ${at(r.atMs)} named a real event cannot be told`,
        });
      }
    } else if (more !== undefined && more.sighting_id !== null) {
      // the proxy saw it go by on one of the session's own streams: it was sent, whatever the server logged
    } else if (r.incarnationId !== null && more?.created_by === 'proxy' && !emittedBefore(more, r)) {
      // Only the proxy shows the creation, and the server logged nothing the session sent before the resumption:
      // the log covers the session's requests from its creation, not what the server sent on its streams.
      notKnowable.push({
        rule: 'phantom-event-id',
        session: r.session,
        reason: `only a proxy's line shows ${r.session} created, the server logged no event it sent before the resumption at ${at(r.atMs)}, and the proxy never saw event ${id} go by: whether it named a real event cannot be told`,
      });
    } else if (r.incarnationId !== null) {
      findings.push(
        finding(
          `resumed ${r.session} from event ${id}, which no stream of any session ${later === null ? 'ever sent' : 'had sent by then'}, although the log covers ${r.session} from its creation at ${at(r.incarnationTs!)}`,
          [r.incarnationId, r.upgradeId],
        ),
      );
    } else if (isDigits(id) && r.highestNumeric !== null && compareNumeric(id, r.highestNumeric.eventId) > 0) {
      findings.push(
        finding(
          `resumed ${r.session} from event ${id}, which ${later === null ? 'was never sent' : 'had not been sent by then'}: it is above every id ${r.session} sent (the highest was ${r.highestNumeric.eventId})`,
          [r.highestNumeric.recordId, r.upgradeId],
        ),
      );
    } else {
      notKnowable.push({
        rule: 'phantom-event-id',
        session: r.session,
        reason: `the log starts after ${r.session} was created and no stream in it ${later === null ? 'sent' : 'had sent'} event ${id}${later === null ? '' : ' by then'}: whether the resumption at ${at(r.atMs)} named an event sent before the log begins cannot be told`,
      });
    }
  }
  return { findings, notKnowable };
}

/** One row of queries/facts/unplaced-last-event-ids.sql. */
interface UnplacedRow {
  up_id: number;
  sighting_id: number | null;
  created_by: 'server' | 'proxy' | null;
  first_emission_ts: number | null;
  first_emission_id: number | null;
}

/** What the proxy's lines and the incarnation tell of each reconnect's Last-Event-ID, by upgrade (none asked: no query). */
function tellUnplaced(facts: ReconnectFacts, reconnects: Reconnect[]): Map<number, UnplacedRow> {
  const told = new Map<number, UnplacedRow>();
  if (reconnects.length === 0) return told;
  const asked = JSON.stringify(reconnects.map((r) => [r.upgradeId, r.session, r.last.eventId, r.incarnationId]));
  for (const row of eachQueryRow<UnplacedRow>(facts.db, 'facts/unplaced-last-event-ids', facts.opts, { asked })) told.set(row.up_id, row);
  return told;
}

/** Did the server log an emission of the session between its creation and the reconnect? */
function emittedBefore(row: UnplacedRow, r: Reconnect): boolean {
  if (row.first_emission_ts === null || row.first_emission_id === null) return false;
  return row.first_emission_ts < r.atMs || (row.first_emission_ts === r.atMs && row.first_emission_id < r.upgradeId);
}

export default defineRule({
  id: 'phantom-event-id',
  severity: 'error',
  family: 'replay-integrity',
  summary: 'A resumption was accepted for a Last-Event-ID that was never emitted.',
  seeds: ['001', '002'],
  explanation: {
    meaning:
      'A resumption was accepted for a Last-Event-ID that no stream of any session in the log had emitted by then (judged where the log covers the session from its creation), or for a numeric id above every id the session emitted. An id first logged within 10 s after the resumption is taken for clock skew.',
    whyItBreaks:
      'An event id is a position in a stream the server wrote. An id the server never emitted is no position at all: the client holds a cursor from another incarnation or another server, and whatever is replayed is not the continuation it asked for.',
    shouldHave:
      'Look the id up in the buffer of the stream that emitted it and reject the resumption (409 resumption_unavailable, or 404 when the session is unknown) when it is not there. Never resume from an id the server cannot place.',
  },
  live: { reads: ['event-id-owners'], settles: 'at-once', rejudges: ['event-id-senders'] },
  facts: [ReconnectFacts.of],
  detect: (ctx) => judgePhantomEventIds(ctx.shared(ReconnectFacts.of)),
});
