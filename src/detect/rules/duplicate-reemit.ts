import { defineRule } from '../rule.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, listIds, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { SERVER_STATE_HIDDEN } from '../facts/proxy-only.js';
import { proxyOnlySessions } from '../facts/sessions.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, RawFinding } from '../types.js';

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
  const rows = queryRows<DuplicateReemitRow>(db, 'rules/duplicate-reemit', opts);
  const proxyOnly = proxyOnlySessions(db, rows.map((r) => r.session));
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of rows) {
    const nk = (reason: string) => notKnowable.push({ rule: 'duplicate-reemit', session: r.session, reason });
    if (proxyOnly.has(r.session)) nk(SERVER_STATE_HIDDEN);
    else if (r.reemitted === null) nk(`the resume at ${at(r.at_ms)} logged no reemitted counter`);
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

export default defineRule({
  id: 'duplicate-reemit',
  severity: 'warning',
  family: 'stream-vs-session',
  summary: 'A stream resumption re-emitted pending requests the client already had.',
  seeds: ['000'],
  explanation: {
    meaning:
      'A stream resumption (resume) re-emitted pending server-to-client requests that its replay or the client already had.',
    whyItBreaks:
      'A resume replays the stream after Last-Event-ID, and that replay already carries every request sent after the position; the ones sent before it the client has. Re-emitting them as well treats a stream resumption as a session resumption and delivers the same request twice.',
    shouldHave:
      'On a resume, replay and nothing more; re-emitting pending requests belongs to an attach, which has no replay.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => duplicateReemit(ctx.db, ctx.opts),
});
