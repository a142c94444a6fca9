import type { Db } from '../../store/db.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';

// rules.md "Protocol revisions": since 2026-07-28 a server must ignore Last-Event-ID.

interface Row {
  session: string | null;
  at_ms: number;
  decision: string;
  replayed: number | null;
  last_event_id: string;
  version: string;
  evidence: string;
}

export function replayInStatelessEra(db: Db, opts: DetectOptions): RawFinding[] {
  return queryRows<Row>(db, 'rules/replay-in-stateless-era', opts).map((r) => {
    const what = r.replayed !== null && r.replayed > 0 ? `replayed ${r.replayed} past event${r.replayed === 1 ? '' : 's'}` : 'was resumed';
    return {
      rule: 'replay-in-stateless-era',
      session: r.session,
      atMs: r.at_ms,
      message: `a request at protocol ${r.version} carrying Last-Event-ID ${r.last_event_id} ${what}: that revision has no resumption, the server must ignore the header`,
      evidenceIds: evidenceIds(r.evidence),
    };
  });
}
