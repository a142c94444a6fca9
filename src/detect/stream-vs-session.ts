import type { NotKnowable } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { evidenceIds, queryRows } from './query-rows.js';
import { listIds, plural, proxyOnlySessions, uncreatedSessions, when } from './timeline-facts.js';
import type { DetectOptions, Detector, RawFinding } from './types.js';

// Stream versus session resumption (rules.md): a session resumption (attach,
// no Last-Event-ID) must not replay but must re-emit or cancel every pending
// server request; a stream resumption (resume) replays and must not re-emit.

const PROXY_ONLY = 'proxy log only: the server state behind its upgrades (replay counters, pending requests) is not visible';

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
  const rows = queryRows<ReplayOnAttachRow>(db, 'replay-on-attach', opts);
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
  const unknown = (
    db
      .prepare(
        `SELECT u.id, u.session, u.ts_ms FROM upgrades u
         WHERE u.decision IN ('attach', 'resume') AND u.last_event_id IS NULL AND u.session IS NOT NULL
           AND u.status BETWEEN 200 AND 299 AND u.replayed IS NULL AND u.first_replayed IS NULL AND u.replayed_ids IS NULL
         ORDER BY u.ts_ms, u.id`,
      )
      .all() as { id: number; session: string; ts_ms: number }[]
  ).filter((u) => !judged.has(u.id));
  const proxyOnly = proxyOnlySessions(db, unknown.map((u) => u.session));
  const notKnowable = unknown.map(
    (u): NotKnowable => ({
      rule: 'replay-on-attach',
      session: u.session,
      reason: proxyOnly.has(u.session) ? PROXY_ONLY : `the attach at ${when(u.ts_ms)} logged no replayed counter`,
    }),
  );
  return { findings, notKnowable };
}

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
  const rows = queryRows<PendingRow>(db, 'pending-not-reemitted', opts);
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
        reason: `the attach at ${when(r.at_ms)} found ${plural(r.pending, 'pending server request')} (${listIds(ids)}) but logged no reemitted/cancelled counter`,
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
    if (proxyOnly.has(u.session)) notKnowable.push({ rule: 'pending-not-reemitted', session: u.session, reason: PROXY_ONLY });
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

interface DuplicateReemitRow {
  upgrade_id: number;
  session: string;
  at_ms: number;
  last_event_id: string | null;
  stream: string | null;
  new_stream: string | null;
  reemitted: number | null;
  pending_on_lane: number;
  never_delivered: number;
  duplicates: number | null;
  history_logged: number;
  on_lane_ids: string;
  delivered_elsewhere_ids: string;
  evidence: string;
}

function duplicateReemit(db: Db, opts: DetectOptions): { findings: RawFinding[]; notKnowable: NotKnowable[] } {
  const rows = queryRows<DuplicateReemitRow>(db, 'duplicate-reemit', opts);
  const proxyOnly = proxyOnlySessions(db, rows.map((r) => r.session));
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of rows) {
    const nk = (reason: string) => notKnowable.push({ rule: 'duplicate-reemit', session: r.session, reason });
    if (proxyOnly.has(r.session)) nk(PROXY_ONLY);
    else if (r.reemitted === null) nk(`the resume at ${when(r.at_ms)} logged no reemitted counter`);
    // Requests pending elsewhere before the log started may explain the re-emission.
    else if (!r.history_logged) nk(`the log starts after ${r.session} was created: requests pending from before it are not visible`);
    else {
      const onLane = JSON.parse(r.on_lane_ids) as string[];
      const deliveredElsewhere = JSON.parse(r.delivered_elsewhere_ids) as string[];
      const resumed = r.stream ?? 'the resumed stream';
      const n = r.never_delivered;
      const undelivered = n === 0 ? 'the client already had every pending one' : `only ${n} pending ${n === 1 ? 'request was' : 'requests were'} never delivered`;
      const had = [
        onLane.length > 0 ? `${listIds(onLane)} ${onLane.length === 1 ? 'was' : 'were'} sent on ${resumed} (received or in the replay)` : '',
        deliveredElsewhere.length > 0 ? `${listIds(deliveredElsewhere)} ${deliveredElsewhere.length === 1 ? 'was' : 'were'} delivered on another live stream` : '',
      ].filter((x) => x !== '');
      findings.push({
        rule: 'duplicate-reemit',
        session: r.session,
        atMs: r.at_ms,
        message:
          `resume of ${r.session} from event ${r.last_event_id ?? '(none)'}${r.new_stream ? ` (new stream ${r.new_stream})` : ''} re-emitted ` +
          `${plural(r.reemitted, 'pending request')} although ${undelivered}${had.length > 0 ? `; ${had.join('; ')}` : ''}: the client receives ${plural(r.duplicates ?? 0, 'request')} twice`,
        evidenceIds: evidenceIds(r.evidence),
      });
    }
  }
  return { findings, notKnowable };
}

export const streamVsSession: Detector = {
  rules: ['replay-on-attach', 'pending-not-reemitted', 'duplicate-reemit'],
  run(db, opts) {
    const parts = [replayOnAttach(db, opts), pendingNotReemitted(db, opts), duplicateReemit(db, opts)];
    return {
      findings: parts.flatMap((p) => p.findings),
      notKnowable: parts.flatMap((p) => p.notKnowable),
    };
  },
};
