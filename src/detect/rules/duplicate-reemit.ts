import { defineRule } from '../rule.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, IDS_SHOWN, listIds, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { SERVER_STATE_HIDDEN } from '../facts/proxy-only.js';
import { proxyOnlySessions } from '../facts/sessions.js';
import { pendingAtReconnects, type PendingAtReconnects } from '../facts/pending-at-reconnects.js';
import type { RawFinding } from '../types.js';

// Which accepted stream resumptions re-emitted pending requests that the replay or the client already had?
// A pending request emitted on the resumed lineage was either received before Last-Event-ID or is in the
// replay; one written to another live stream (attached) was delivered there: re-emitting either duplicates
// it. Only requests the client never had (pending on another lane, attached: false) may be re-emitted:
// duplicates = reemitted - never delivered. A NULL reemitted was not logged: such resumptions are not
// knowable. The requests pending at each come from one walk of queries/facts/requests-and-reconnects.sql
// (facts/pending-at-reconnects.ts): listing them per resumption in SQL made a session whose requests are
// never answered cost its length squared.

function duplicateReemit(db: Db, facts: PendingAtReconnects): { findings: RawFinding[]; notKnowable: NotKnowable[] } {
  const rows = facts.reemittingResumes;
  const proxyOnly = proxyOnlySessions(db, rows.map((r) => r.resume.session));
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const { resume: r, neverDelivered: n, onLane, deliveredElsewhere, evidence } of rows) {
    const nk = (reason: string) => notKnowable.push({ rule: 'duplicate-reemit', session: r.session, reason });
    if (proxyOnly.has(r.session)) nk(SERVER_STATE_HIDDEN);
    else if (r.reemitted === null) nk(`the resume at ${at(r.atMs)} logged no reemitted counter`);
    // Requests pending elsewhere before the log started may explain the re-emission.
    else if (!r.historyLogged) nk(`the log starts after ${r.session} was created: requests pending from before it are not visible`);
    else {
      const resumed = r.stream ?? 'the resumed stream';
      const undelivered = n === 0 ? 'the client already had every pending one' : `only ${n} pending ${n === 1 ? 'request was' : 'requests were'} never delivered`;
      const had = [
        onLane.count > 0 ? `${listIds(onLane.first, IDS_SHOWN, onLane.count)} ${onLane.count === 1 ? 'was' : 'were'} sent on ${resumed} (received or in the replay)` : '',
        deliveredElsewhere.count > 0
          ? `${listIds(deliveredElsewhere.first, IDS_SHOWN, deliveredElsewhere.count)} ${deliveredElsewhere.count === 1 ? 'was' : 'were'} delivered on another live stream`
          : '',
      ].filter((x) => x !== '');
      findings.push({
        rule: 'duplicate-reemit',
        session: r.session,
        atMs: r.atMs,
        message:
          `resume of ${r.session} from event ${r.lastEventId ?? '(none)'}${r.newStream ? ` (new stream ${r.newStream})` : ''} re-emitted ` +
          `${plural(r.reemitted, 'pending request')} although ${undelivered}${had.length > 0 ? `; ${had.join('; ')}` : ''}: the client receives ${plural(r.reemitted - n, 'request')} twice`,
        evidenceIds: evidence,
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
  facts: [pendingAtReconnects],
  detect: (ctx) => duplicateReemit(ctx.db, ctx.shared(pendingAtReconnects)),
});
