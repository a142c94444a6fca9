import type { NotKnowable } from '../../model/finding.js';
import { compareNumeric, isDigits } from '../../model/event-order.js';
import { proxySawEmitted } from '../facts/proxy-view.js';
import { at, duration } from '../../model/phrasing.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../model/thresholds.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';

// phantom-event-id: an accepted resumption from a Last-Event-ID that no stream
// of any session in the log had emitted. Absence proves something only where
// the log covers the session from its creation, or where the id is numeric and
// above every id the session did emit; otherwise it is not knowable.

export function judgePhantomEventIds(facts: ReconnectFacts): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of facts.resumptions) {
    if (r.last.own !== null || r.last.elsewhere !== null) continue;
    const later = r.firstEmission;
    if (later !== null && later.atMs - r.atMs <= CLOCK_SKEW_ALLOWANCE_MS) continue;
    const id = r.last.eventId;
    const finding = (message: string, evidenceIds: number[]): RawFinding => ({
      rule: 'phantom-event-id',
      session: r.session,
      atMs: r.atMs,
      message: later === null ? message : `${message}; it was first sent ${duration(later.atMs - r.atMs)} later, on ${later.stream} of ${later.session}`,
      evidenceIds: later === null ? evidenceIds : [...evidenceIds, later.recordId],
    });
    if (facts.isProxyOnly(r.session)) {
      if (later === null && !proxySawEmitted(facts.proxy, r)) {
        notKnowable.push({
          rule: 'phantom-event-id',
          session: r.session,
          reason: `proxy log only: the proxy never saw event ${id} go by and cannot see what the server sent, so whether the resumption at ${at(r.atMs)} named a real event cannot be told`,
        });
      }
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
