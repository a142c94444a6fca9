import type { NotKnowable } from '../../model/finding.js';
import { at } from '../../model/phrasing.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { endedHow, type ServedUpgrade } from './session-states.js';

// resume-after-end: a resume or attach was accepted for a session id that the
// log shows terminated or evicted before (and not created again since). A
// terminated session's log is no resumption source, even if its bytes remain.

export function judgeResumesAfterEnd(served: ServedUpgrade[], proxyOnly: (session: string) => boolean): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const u of served) {
    if (u.decision === 'fresh') continue;
    const what = u.decision === 'resume' ? `resumed ${u.session} from event ${u.lastEventId ?? '(none)'}` : `attached to ${u.session}`;
    if (u.state === 'ended') {
      findings.push({
        rule: 'resume-after-end',
        session: u.session,
        atMs: u.atMs,
        message: `${what} (status ${u.status}) although it was ${endedHow(u.life!)} at ${at(u.life!.atMs)}: an ended session is no resumption source`,
        evidenceIds: [u.life!.recordId, u.upgradeId],
      });
    } else if (proxyOnly(u.session)) {
      notKnowable.push({ rule: 'resume-after-end', session: u.session, reason: `proxy log only: the server's evictions of ${u.session} are not visible, so whether it had ended before it was ${u.decision === 'resume' ? 'resumed' : 'attached to'} cannot be told` });
    } else if (u.state === 'never-created') {
      notKnowable.push({ rule: 'resume-after-end', session: u.session, reason: `the log holds no creation of ${u.session}: an end before the log begins cannot be seen` });
    }
  }
  return { findings, notKnowable };
}
