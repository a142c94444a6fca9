import { judgeEventIdRegressions } from './replay-integrity/event-id-regression.js';
import { judgeEventIdsWithoutSession } from './replay-integrity/event-id-without-session.js';
import { judgeForeignEventIds } from './replay-integrity/foreign-event-id.js';
import { judgePhantomEventIds } from './replay-integrity/phantom-event-id.js';
import { truncationCauses } from './replay-integrity/silent-truncation.js';
import { ReconnectFacts } from './resumption/facts.js';
import type { Detector, DetectorOutput } from './types.js';

export { RETENTION_CAUSES, truncationCauses, type Truncation, type TruncationCause } from './replay-integrity/silent-truncation.js';

/**
 * Replay integrity: did a resumption replay exactly the events after its
 * Last-Event-ID, from that session's stream? (rules.md "Replay integrity")
 */
export const replayIntegrity: Detector = {
  rules: ['silent-truncation', 'phantom-event-id', 'foreign-event-id', 'event-id-without-session', 'event-id-regression'],
  run(db, opts) {
    const facts = ReconnectFacts.of(db, opts);
    const truncation = truncationCauses(db, opts, facts);
    const parts: DetectorOutput[] = [
      { findings: truncation.truncations.map((t) => t.finding), notKnowable: truncation.notKnowable },
      judgePhantomEventIds(facts),
      judgeForeignEventIds(facts),
      judgeEventIdsWithoutSession(db, opts),
      judgeEventIdRegressions(facts),
    ];
    return {
      findings: parts.flatMap((p) => p.findings),
      notKnowable: parts.flatMap((p) => p.notKnowable),
    };
  },
};
