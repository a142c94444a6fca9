import { defineRule } from '../rule.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, listIds, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { SERVER_STATE_HIDDEN } from '../facts/proxy-only.js';
import { proxyOnlySessions } from '../facts/sessions.js';
import { statuslessReconnects } from '../facts/statusless-reconnects.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';

interface ReplayOnAttachRow {
  upgrade_id: number;
  session: string;
  at_ms: number;
  decision: string;
  new_stream: string | null;
  replayed: number | null;
  first_replayed: string | null;
  listed_ids: number;
  replay_records: number | null;
  replay_record_ids: string | null;
  seen_again: number | null;
  seen_again_ids: string | null;
  evidence: string;
}

function replayOnAttach(db: Db, opts: DetectOptions): { findings: RawFinding[]; notKnowable: NotKnowable[] } {
  const rows = queryRows<ReplayOnAttachRow>(db, 'rules/replay-on-attach', opts);
  const findings = rows.map((r): RawFinding => {
    const count = r.replayed ?? (r.listed_ids || r.replay_records || r.seen_again || 0);
    const what = count > 0 ? plural(count, 'past event') : 'past events';
    const first = r.first_replayed ?? r.replay_record_ids?.split(', ')[0] ?? r.seen_again_ids?.split(', ')[0];
    const seen = r.seen_again && !r.replay_records ? ` (the proxy saw ${listIds(r.seen_again_ids!.split(', '))} delivered earlier in the session)` : '';
    return {
      rule: 'replay-on-attach',
      session: r.session,
      atMs: r.at_ms,
      message:
        `${r.decision} to ${r.session} without Last-Event-ID${r.new_stream ? ` (new stream ${r.new_stream})` : ''} replayed ${what}` +
        `${first !== undefined ? ` starting at event ${first}` : ''}${seen}: a session resumption must not replay, the client already had them`,
      evidenceIds: evidenceIds(r.evidence),
    };
  });
  const judged = new Set(rows.map((r) => r.upgrade_id));
  const unknown = queryRows<{ id: number; session: string; ts_ms: number }>(db, 'facts/uncounted-session-resumptions', opts).filter((u) => !judged.has(u.id));
  const proxyOnly = proxyOnlySessions(db, unknown.map((u) => u.session));
  const notKnowable = unknown.map(
    (u): NotKnowable => ({
      rule: 'replay-on-attach',
      session: u.session,
      reason: proxyOnly.has(u.session) ? SERVER_STATE_HIDDEN : `the attach at ${at(u.ts_ms)} logged no replayed counter`,
    }),
  );
  return { findings, notKnowable: [...notKnowable, ...statuslessReconnects(db, opts, 'replay-on-attach')] };
}

export default defineRule({
  id: 'replay-on-attach',
  severity: 'error',
  family: 'stream-vs-session',
  summary: 'A session resumption (no Last-Event-ID) replayed past events.',
  seeds: ['000'],
  explanation: {
    meaning:
      'An upgrade without Last-Event-ID (a session resumption) replayed past events.',
    whyItBreaks:
      'Without Last-Event-ID the client asks for a new stream on its session, not for a continuation: it names no position. Replaying past events treats the session id as a replay cursor and delivers events the client may already have handled, repeating their effects.',
    shouldHave:
      'Open the new stream without replay, and re-emit or cancel the session\'s pending server-to-client requests on it.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => replayOnAttach(ctx.db, ctx.opts),
});
