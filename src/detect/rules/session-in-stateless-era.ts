import type { Db } from '../../store/db.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';

// rules.md "Protocol revisions": since 2026-07-28 a server neither mints nor echoes Mcp-Session-Id.
// A mint is judged by the revision its session speaks (an initialize selects the legacy one it
// negotiated), an echo by its request's own; one mint is one finding (queries/rules/session-in-stateless-era.sql).

interface Row {
  session: string;
  at_ms: number;
  kind: string;
  version: string;
  evidence: string;
  /** A minting upgrade whose session.created answered it: one mint, cited twice. */
  created_too: number;
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
    message: `a request at protocol ${r.version} was answered with a session (${HOW[r.kind] ?? r.kind} ${r.session}${r.created_too ? ', and the server created it' : ''}): a server of that revision has no sessions and must neither mint nor echo one`,
    evidenceIds: evidenceIds(r.evidence),
  }));
}

export default defineRule({
  id: 'session-in-stateless-era',
  severity: 'error',
  family: 'protocol-revisions',
  summary: 'A request at protocol 2026-07-28 or later was answered with a session.',
  seeds: [],
  explanation: {
    meaning:
      'A request at protocol revision 2026-07-28 or later was answered with a session: a session.created, an upgrade that minted one, or a response carrying Mcp-Session-Id. A mint is judged by the revision its session speaks (an initialize selects the legacy revision it negotiated, whatever version the client asked for), an echo of a presented id by its request\'s own revision; a minting upgrade and the session.created answering it are one finding.',
    whyItBreaks:
      'That revision removed Mcp-Session-Id (SEP-2567): its clients neither keep nor send one, so any state the server hangs on the session is lost on the next request, and a client that does echo it is treated as if it spoke an older revision.',
    shouldHave:
      'At 2026-07-28 and later, mint and echo no session: keep durable work in the tasks extension, and keep sessions only for clients that negotiated an earlier revision.',
  },
  // A mint is judged by its session's revision, which a later line of the session can show to be an earlier
  // one (its mint logged the version the client asked for): held until it has stood, as an answer may still come.
  live: { reads: [], settles: 'end-of-log' },
  detect: (ctx) => ({ findings: sessionInStatelessEra(ctx.db, ctx.opts), notKnowable: [] }),
});
