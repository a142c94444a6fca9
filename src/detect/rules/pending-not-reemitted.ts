import { defineRule } from '../rule.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, IDS_SHOWN, listIds, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { SERVER_STATE_HIDDEN } from '../facts/proxy-only.js';
import { proxyOnlySessions, uncreatedSessions } from '../facts/sessions.js';
import { pendingAtReconnects, type PendingAtReconnects } from '../facts/pending-at-reconnects.js';
import { queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';

// Which accepted attaches found server requests pending and re-emitted or cancelled fewer of them? The
// requests pending at each come from one walk of queries/facts/requests-and-reconnects.sql
// (facts/pending-at-reconnects.ts), not from SQL of its own: listing the pending requests of every
// attach made a session that never answers its requests cost its length squared.

function pendingNotReemitted(db: Db, opts: DetectOptions, facts: PendingAtReconnects): { findings: RawFinding[]; notKnowable: NotKnowable[] } {
  const rows = facts.attachShortfalls;
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const { attach: a, pending, onOpenPost, first } of rows) {
    const ids = first.map((q) => q.requestId);
    if (a.reemitted === null || a.cancelled === null) {
      notKnowable.push({
        rule: 'pending-not-reemitted',
        session: a.session,
        reason: `the attach at ${at(a.atMs)} found ${plural(pending, 'pending server request')} (${listIds(ids, IDS_SHOWN, pending)}) but logged no reemitted/cancelled counter`,
      });
      continue;
    }
    const handled = a.reemitted + a.cancelled;
    const named = listIds(first.map((q) => (q.method ? `${q.requestId} ${q.method}` : q.requestId)), IDS_SHOWN, pending);
    findings.push({
      rule: 'pending-not-reemitted',
      session: a.session,
      atMs: a.atMs,
      message:
        `attach to ${a.session}${a.newStream ? ` (new stream ${a.newStream})` : ''} found ${plural(pending, 'pending server request')} ` +
        `[${named}] but re-emitted ${a.reemitted} and cancelled ${a.cancelled}: ${leftWhere(pending - handled, onOpenPost)}`,
      evidenceIds: [...first.slice(0, handled + 1).map((q) => q.sentId), a.id],
    });
  }
  // Sessions whose pending requests cannot be seen: a proxy log, or a log that starts after the session was created.
  const judged = new Set(rows.map((r) => r.attach.id));
  const attaches = queryRows<{ id: number; session: string; ts_ms: number }>(db, 'facts/accepted-attaches', opts).filter((u) => !judged.has(u.id));
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

/**
 * Where the requests left behind wait. Some may be on a POST stream still open: a client that kept its
 * process reads them there, but one that restarted (what an attach without Last-Event-ID may mean, seed 000)
 * does not, and rules.md counts every pending request; the message says which, so that a reader can tell.
 */
function leftWhere(left: number, onOpenPost: number): string {
  if (onOpenPost === 0) return `${left} left waiting on a stream the client no longer reads`;
  const where =
    onOpenPost < left
      ? `${left} left where they were sent, ${onOpenPost} of them on a POST stream still open`
      : left === 1
        ? '1 left on the POST stream it was sent on, still open'
        : `${left} left on the POST streams they were sent on, still open`;
  return `${where}, which a client that restarted no longer reads (an attach without Last-Event-ID may mean one did; rules.md has an attach re-emit or cancel every pending request)`;
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
  facts: [pendingAtReconnects],
  detect: (ctx) => pendingNotReemitted(ctx.db, ctx.opts, ctx.shared(pendingAtReconnects)),
});
