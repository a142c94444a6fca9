import { defineRule } from '../rule.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, listIds, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { SERVER_STATE_HIDDEN } from '../facts/proxy-only.js';
import { proxyOnlySessions, uncreatedSessions } from '../facts/sessions.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';

interface PendingRow {
  upgrade_id: number;
  session: string;
  at_ms: number;
  new_stream: string | null;
  reemitted: number | null;
  cancelled: number | null;
  counters_logged: number;
  pending: number;
  pending_ids: string;
  pending_methods: string;
  evidence: string;
}

function pendingNotReemitted(db: Db, opts: DetectOptions): { findings: RawFinding[]; notKnowable: NotKnowable[] } {
  const rows = queryRows<PendingRow>(db, 'rules/pending-not-reemitted', opts);
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of rows) {
    const ids = JSON.parse(r.pending_ids) as string[];
    const methods = JSON.parse(r.pending_methods) as (string | null)[];
    const named = listIds(ids.map((id, i) => (methods[i] ? `${id} ${methods[i]}` : id)));
    if (!r.counters_logged) {
      notKnowable.push({
        rule: 'pending-not-reemitted',
        session: r.session,
        reason: `the attach at ${at(r.at_ms)} found ${plural(r.pending, 'pending server request')} (${listIds(ids)}) but logged no reemitted/cancelled counter`,
      });
      continue;
    }
    const handled = (r.reemitted ?? 0) + (r.cancelled ?? 0);
    findings.push({
      rule: 'pending-not-reemitted',
      session: r.session,
      atMs: r.at_ms,
      message:
        `attach to ${r.session}${r.new_stream ? ` (new stream ${r.new_stream})` : ''} found ${plural(r.pending, 'pending server request')} ` +
        `[${named}] but re-emitted ${r.reemitted} and cancelled ${r.cancelled}: ${r.pending - handled} left waiting on a stream the client no longer reads`,
      evidenceIds: evidenceIds(r.evidence),
    });
  }
  // Sessions whose pending requests cannot be seen: a proxy log, or a log that starts after the session was created.
  const judged = new Set(rows.map((r) => r.upgrade_id));
  const attaches = (
    db
      .prepare(`SELECT id, session, ts_ms FROM upgrades WHERE decision = 'attach' AND status BETWEEN 200 AND 299 AND session IS NOT NULL ORDER BY ts_ms, id`)
      .all() as { id: number; session: string; ts_ms: number }[]
  ).filter((u) => !judged.has(u.id));
  const sessions = attaches.map((u) => u.session);
  const proxyOnly = proxyOnlySessions(db, sessions);
  const uncreated = uncreatedSessions(db, sessions);
  for (const u of attaches) {
    if (proxyOnly.has(u.session)) notKnowable.push({ rule: 'pending-not-reemitted', session: u.session, reason: SERVER_STATE_HIDDEN });
    else if (uncreated.has(u.session)) {
      notKnowable.push({
        rule: 'pending-not-reemitted',
        session: u.session,
        reason: `the log starts after ${u.session} was created: server requests still pending from before it are not visible`,
      });
    }
  }
  return { findings, notKnowable };
}

export default defineRule({
  id: 'pending-not-reemitted',
  severity: 'error',
  family: 'stream-vs-session',
  summary: 'An attach left pending server-to-client requests neither re-emitted nor cancelled.',
  seeds: ['000'],
  explanation: {
    meaning:
      'An attach found server-to-client requests pending (sent, and not answered, cancelled, re-issued or timed out), and re-emitted or cancelled fewer of them than were pending.',
    whyItBreaks:
      'Pending requests belong to the session, not to the stream that carried them. A session resumption leaves the old stream behind, so a request delivered only there is lost: the client never sees it and the server waits until it times out.',
    shouldHave:
      'On every attach, re-emit each pending request on the new stream (under a fresh id, the old one tombstoned) or fail it explicitly with a JSON-RPC error.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => pendingNotReemitted(ctx.db, ctx.opts),
});
