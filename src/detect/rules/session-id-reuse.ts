import type { Db } from '../../store/db.js';
import { findingPerRow } from '../finding-batches.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import { at } from '../../model/phrasing.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';
import { defineRule, type RuleContext } from '../rule.js';

// session-id-reuse: one session id string was created twice (SQL:
// queries/rules/session-id-reuse.sql). Clients that key state on the id alone cannot
// tell the two sessions apart.

interface Row {
  session: string;
  at_ms: number;
  node: string | null;
  incarnation: string | null;
  previous_ts: number;
  previous_node: string | null;
  previous_incarnation: string | null;
  evidence: string;
}

const where = (node: string | null, incarnation: string | null) =>
  `${node ? ` on node ${node}` : ''}${incarnation ? ` (incarnation ${incarnation})` : ''}`;

function judgeSessionIdReuse(db: Db, opts: DetectOptions, handOver?: RuleContext['handOver']): DetectorOutput {
  const findings = findingPerRow(eachQueryRow<Row>(db, 'rules/session-id-reuse', opts), (r): RawFinding => ({
    rule: 'session-id-reuse',
    session: r.session,
    atMs: r.at_ms,
    message: `session id ${r.session} was created again at ${at(r.at_ms)}${where(r.node, r.incarnation)}, after it was created at ${at(r.previous_ts)}${where(r.previous_node, r.previous_incarnation)}: two sessions share one id string`,
    evidenceIds: evidenceIds(r.evidence),
  }), handOver);
  return { findings, notKnowable: [] };
}

export default defineRule({
  id: 'session-id-reuse',
  severity: 'warning',
  family: 'session-continuity',
  summary: 'One session id string was created twice.',
  seeds: ['004'],
  explanation: {
    meaning:
      'One session id string was created twice: a second session.created names an id that was already minted.',
    whyItBreaks:
      'A session id should name one identity. Reused, one string stands for two sessions, and clients, caches and dedup maps keyed on it mix their events: the precondition of a silent fork.',
    shouldHave:
      'Mint session ids from a cryptographically random source and never reuse one; carry an incarnation nonce so that even a reused string stays distinguishable.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => judgeSessionIdReuse(ctx.db, ctx.opts, ctx.handOver),
});
