import type { Db } from '../../store/db.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';
import { listIds } from '../../model/phrasing.js';

// rules.md "Protocol revisions": since 2026-07-28 a server must ignore Last-Event-ID.

interface Row {
  session: string | null;
  at_ms: number;
  decision: string;
  replayed: number | null;
  last_event_id: string;
  version: string;
  origin: 'server' | 'proxy';
  status: number | null;
  /** A proxy's GET: the SSE ids it saw on the response (a JSON array), where its line lists them. */
  seen_ids: string | null;
  /** The request logs no version: it is judged by its session's. */
  inherited: 0 | 1;
  /** Then the session's line that logs its version, where one does. */
  version_shown_by: number | null;
  evidence: string;
}

/** What a proxy saw of a GET it judged resumed: the status, and the event ids the stream carried. */
function proxySaw(r: Row): string {
  const ids = r.seen_ids === null ? [] : (JSON.parse(r.seen_ids) as unknown[]).map(String);
  const sent = ids.length === 0 ? '' : `, then event id${ids.length === 1 ? '' : 's'} ${listIds(ids)}`;
  return `a proxy saw ${r.status ?? '2xx'}${sent}`;
}

export function replayInStatelessEra(db: Db, opts: DetectOptions): RawFinding[] {
  return queryRows<Row>(db, 'rules/replay-in-stateless-era', opts).map((r) => {
    // A GET has no stream at that revision (its Backward Compatibility section: 405), so a proxy's accepted one was resumed.
    if (r.origin === 'proxy') {
      return {
        rule: 'replay-in-stateless-era',
        session: r.session,
        atMs: r.at_ms,
        message: `a GET at protocol ${r.version} carrying Last-Event-ID ${r.last_event_id} was resumed (${proxySaw(r)}): that revision has no GET stream and no resumption, the server must answer a GET 405`,
        evidenceIds: evidenceIds(r.evidence),
      };
    }
    const what = r.replayed !== null && r.replayed > 0 ? `replayed ${r.replayed} past event${r.replayed === 1 ? '' : 's'}` : 'was resumed';
    const ids = evidenceIds(r.evidence);
    const inherited = r.session !== null && r.inherited === 1;
    const shownBy = inherited ? r.version_shown_by : null;
    return {
      rule: 'replay-in-stateless-era',
      session: r.session,
      atMs: r.at_ms,
      message:
        `a request at protocol ${r.version}${inherited ? ` (its session ${r.session}'s: the request logs none)` : ''} carrying Last-Event-ID ` +
        `${r.last_event_id} ${what}: that revision has no resumption, the server must ignore the header`,
      evidenceIds: shownBy === null ? ids : [shownBy, ...ids],
    };
  });
}

export default defineRule({
  id: 'replay-in-stateless-era',
  severity: 'error',
  family: 'protocol-revisions',
  summary: 'A request at protocol 2026-07-28 or later was resumed from Last-Event-ID.',
  seeds: [],
  explanation: {
    meaning:
      'A request at protocol revision 2026-07-28 or later carried Last-Event-ID and the server resumed the stream or replayed past events.',
    whyItBreaks:
      'That revision removed Last-Event-ID resumption (SEP-2575): the client re-issues a lost request under a new id, so a replay delivers results the client has stopped waiting for, or delivers them twice.',
    shouldHave:
      'Ignore Last-Event-ID on requests at 2026-07-28 and later: answer each request on its own response stream, with no replay, and a GET, which has no stream at that revision, with 405.',
  },
  live: { reads: ['sessionless-records'], settles: 'at-once' },
  detect: (ctx) => ({ findings: replayInStatelessEra(ctx.db, ctx.opts), notKnowable: [] }),
});
