import type { Db } from '../../store/db.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';

// rules.md "Protocol revisions": since 2026-07-28 a server neither mints nor echoes Mcp-Session-Id.

interface Row {
  session: string;
  at_ms: number;
  kind: string;
  version: string;
  evidence: string;
}

const HOW: Record<string, string> = {
  'session.created': 'the server created session',
  upgrade: 'the upgrade minted session',
  http: 'the response carried Mcp-Session-Id',
};

export function sessionInStatelessEra(db: Db, opts: DetectOptions): RawFinding[] {
  return queryRows<Row>(db, 'rules/session-in-stateless-era', opts).map((r) => ({
    rule: 'session-in-stateless-era',
    session: r.session,
    atMs: r.at_ms,
    message: `a request at protocol ${r.version} was answered with a session (${HOW[r.kind] ?? r.kind} ${r.session}): a server of that revision has no sessions and must neither mint nor echo one`,
    evidenceIds: evidenceIds(r.evidence),
  }));
}
