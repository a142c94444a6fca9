import type { NotKnowable } from '../../model/finding.js';
import { at } from '../../model/phrasing.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { endedHow, type ServedUpgrade } from '../facts/served-upgrades.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';
import { loadServedUpgrades } from '../facts/served-upgrades.js';

// resume-after-end: a resume or attach was accepted for a session id that the
// log shows terminated or evicted before (and not created again since). A
// terminated session's log is no resumption source, even if its bytes remain.
// A 404 for the id since the end (silent-fork's "unknown") does not revive it:
// the log still shows the end.

export function judgeResumesAfterEnd(served: Iterable<ServedUpgrade>, proxyOnly: (session: string) => boolean): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const u of served) {
    if (u.decision === 'fresh') continue;
    const what = u.decision === 'resume' ? `resumed ${u.session} from event ${u.lastEventId ?? '(none)'}` : `attached to ${u.session}`;
    const end = u.state === 'ended' ? u.life : u.state === 'answered-404' ? u.endedBefore : null;
    if (end !== null) {
      const since = u.state === 'answered-404' ? ` (and answered 404 since, at ${at(u.life!.atMs)})` : '';
      findings.push({
        rule: 'resume-after-end',
        session: u.session,
        atMs: u.atMs,
        message: `${what} (status ${u.status}) although it was ${endedHow(end)} at ${at(end.atMs)}${since}: an ended session is no resumption source`,
        evidenceIds: [end.recordId, u.upgradeId],
      });
    } else if (proxyOnly(u.session)) {
      notKnowable.push({ rule: 'resume-after-end', session: u.session, reason: `proxy log only: the server's evictions of ${u.session} are not visible, so whether it had ended before it was ${u.decision === 'resume' ? 'resumed' : 'attached to'} cannot be told` });
    } else if (u.state === 'never-created') {
      notKnowable.push({ rule: 'resume-after-end', session: u.session, reason: `the log holds no creation of ${u.session}: an end before the log begins cannot be seen` });
    }
  }
  return { findings, notKnowable };
}

export default defineRule({
  id: 'resume-after-end',
  severity: 'error',
  family: 'session-continuity',
  summary: 'A terminated or evicted session was resumed or attached to.',
  seeds: ['002', '004'],
  explanation: {
    meaning:
      'A resume or attach was accepted for a session id that the log shows terminated or evicted earlier.',
    whyItBreaks:
      'A session id is an identity that ends with its session. A terminated session is no resumption source even if its event log remains: its negotiated capabilities and pending requests are gone, so the client carries on a conversation the server has already closed.',
    shouldHave:
      'Answer 404 (or 410) to every request that presents a terminated or evicted session id, so that the client re-initializes.',
  },
  live: { reads: [], settles: 'at-once' },
  facts: [ReconnectFacts.of, loadServedUpgrades],
  detect(ctx) {
    const facts = ctx.shared(ReconnectFacts.of);
    return judgeResumesAfterEnd(ctx.shared(loadServedUpgrades), (session) => facts.isProxyOnly(session));
  },
});
