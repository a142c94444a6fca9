import { ReconnectFacts } from './resumption/facts.js';
import { judgeResumesAcrossStateChange } from './session-continuity/resume-across-state-change.js';
import { judgeResumesAfterEnd } from './session-continuity/resume-after-end.js';
import { judgeSessionIdReuse } from './session-continuity/session-id-reuse.js';
import { loadServedUpgrades } from './session-continuity/session-states.js';
import { judgeSilentForks } from './session-continuity/silent-fork.js';
import { judgeSilentResets } from './session-continuity/silent-reset.js';
import type { Detector, DetectorOutput } from './types.js';

/**
 * Session continuity: was a reconnect served by the session it named, alive
 * and unchanged, or was the client told it was not? (rules.md "Session continuity")
 */
export const sessionContinuity: Detector = {
  rules: ['resume-after-end', 'resume-across-state-change', 'silent-fork', 'silent-reset', 'session-id-reuse'],
  run(db, opts) {
    const facts = ReconnectFacts.of(db, opts);
    const served = loadServedUpgrades(db, opts);
    const proxyOnly = (session: string) => facts.isProxyOnly(session);
    const parts: DetectorOutput[] = [
      judgeResumesAfterEnd(served, proxyOnly),
      judgeResumesAcrossStateChange(facts),
      judgeSilentForks(served, proxyOnly),
      judgeSilentResets(served, facts),
      judgeSessionIdReuse(db, opts),
    ];
    return {
      findings: parts.flatMap((p) => p.findings),
      notKnowable: parts.flatMap((p) => p.notKnowable),
    };
  },
};
