import type { NotKnowable } from '../../model/finding.js';
import { at } from '../../model/phrasing.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';

// resume-across-state-change: a resumption was accepted although a
// session.state_changed lies after the event Last-Event-ID and before the
// upgrade. A replay carries events, not the session state the client missed.

function judgeResumesAcrossStateChange(facts: ReconnectFacts): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of facts.resumptions) {
    const id = r.last.eventId;
    if (facts.isProxyOnly(r.session)) {
      notKnowable.push({ rule: 'resume-across-state-change', session: r.session, reason: `proxy log only: ${r.session}'s state changes are not visible` });
    } else if (r.stateChange === null) {
      continue;
    } else if (r.last.own === null) {
      if (r.last.elsewhere !== null) {
        // v2: rules are judged independently; a foreign id does not exempt the resumption from this rule
        const other = r.last.elsewhere;
        findings.push({
          rule: 'resume-across-state-change',
          session: r.session,
          atMs: r.atMs,
          message: `resumed ${r.session} from event ${id} (sent by ${other.session}) across a ${r.stateChange.aspect ?? 'session'} state change of ${r.session} at ${at(r.stateChange.atMs)}, made after event ${id} was sent: the replay cannot carry it, so the client's view of the session is stale`,
          evidenceIds: [other.recordId, r.stateChange.recordId, r.upgradeId],
        });
        continue;
      }
      notKnowable.push({
        rule: 'resume-across-state-change',
        session: r.session,
        reason: `${r.session}'s ${r.stateChange.aspect ?? 'state'} changed at ${at(r.stateChange.atMs)}, but the log never shows event ${id} sent, so whether the change lies after it cannot be told`,
      });
    } else {
      findings.push({
        rule: 'resume-across-state-change',
        session: r.session,
        atMs: r.atMs,
        message: `resumed ${r.session} from event ${id} across a ${r.stateChange.aspect ?? 'session'} state change at ${at(r.stateChange.atMs)}, made after event ${id} was sent: the replay cannot carry it, so the client's view of the session is stale`,
        evidenceIds: [r.last.own.recordId, r.stateChange.recordId, r.upgradeId],
      });
    }
  }
  return { findings, notKnowable };
}

export default defineRule({
  id: 'resume-across-state-change',
  severity: 'error',
  family: 'session-continuity',
  summary: 'A resumption replayed across a session state change.',
  seeds: ['002'],
  explanation: {
    meaning:
      'A resumption was accepted although session state (capabilities, subscriptions, auth scope) changed after the event named by Last-Event-ID and before the reconnect.',
    whyItBreaks:
      'Replay restores one stream\'s events, not the session\'s state. When capabilities, subscriptions or scope changed inside the replay window, what the client knew before the disconnect no longer holds, and the replayed events land on top of a state that is gone.',
    shouldHave:
      'Refuse the resumption (409 resumption_unavailable), or start a fresh session with an explicit reset, so that the client negotiates again.',
  },
  live: { reads: [], settles: 'at-once' },
  facts: [ReconnectFacts.of],
  detect: (ctx) => judgeResumesAcrossStateChange(ctx.shared(ReconnectFacts.of)),
});
