import { defineRule, type RuleContext } from '../rule.js';
import { FindingBatches } from '../finding-batches.js';
import type { NotKnowable } from '../../model/finding.js';
import { at } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import type { DetectOptions, DetectorOutput } from '../types.js';

interface CrossPrincipalRow {
  upgrade_id: number;
  session: string | null;
  at_ms: number;
  decision: string;
  last_event_id: string | null;
  source_session: string | null;
  also_sent_by: string | null;
  owner: string | null;
  client: string | null;
  /** The replayed id that led to another session, where the Last-Event-ID was the presented session's own. */
  replayed_id: string | null;
  /** The events served were sent by another incarnation of the presented session id than the upgrade's. */
  earlier_incarnation: number;
  /** There, the first replayed id, where it is not the Last-Event-ID's event. */
  served_id: string | null;
  evidence: string;
}

function crossPrincipalReplay(db: Db, opts: DetectOptions, handOver: RuleContext['handOver']): DetectorOutput {
  const findings = new FindingBatches(handOver);
  const notKnowable: NotKnowable[] = [];
  for (const r of eachQueryRow<CrossPrincipalRow>(db, 'rules/cross-principal-replay', opts)) {
    const rule = 'cross-principal-replay';
    // No session behind the replayed events (an id no session emitted, presented without a session): nothing to own.
    if (r.source_session === null) continue;
    if (r.also_sent_by !== null) {
      notKnowable.push({
        rule,
        session: r.session,
        reason: `event ${r.replayed_id ?? r.last_event_id} that the ${r.decision} at ${at(r.at_ms)} ${r.replayed_id !== null ? 'replayed' : 'named'} had been sent by ${r.source_session} and by ${r.also_sent_by}: whose events were replayed cannot be told`,
      });
      continue;
    }
    if (r.owner === null) {
      notKnowable.push({ rule, session: r.session, reason: `no principal is logged for ${r.source_session}: who owns its events is not known` });
      continue;
    }
    if (r.client === null) {
      notKnowable.push({ rule, session: r.session, reason: `the ${r.decision} at ${at(r.at_ms)} logged no principal, nor did a stream on its connection` });
      continue;
    }
    const from = r.last_event_id !== null ? ` from event ${r.last_event_id}` : '';
    const replayed = r.replayed_id !== null ? `event ${r.replayed_id} and other events` : 'events';
    const message =
      r.source_session !== r.session
        ? `${r.decision} presenting ${r.session ?? 'no session'}${from} replayed ${replayed} of ${r.source_session} (owner ${r.owner}) to ${r.client}`
        : r.earlier_incarnation
          ? `${r.client} was served a ${r.decision} of ${r.session}${from}${r.served_id !== null ? ` that replayed event ${r.served_id}` : ''}, which an earlier incarnation of ${r.session}, owned by ${r.owner}, had sent: its events were replayed to another principal`
          : `${r.client} was served a ${r.decision} of ${r.session}${from}, but ${r.session} belongs to ${r.owner}: its events were replayed to another principal`;
    findings.push({ rule, session: r.session, atMs: r.at_ms, message, evidenceIds: evidenceIds(r.evidence) });
  }
  return { findings: findings.rest(), notKnowable };
}

export default defineRule({
  id: 'cross-principal-replay',
  severity: 'critical',
  family: 'writers-and-requests',
  summary: 'A session\'s events were replayed to another principal.',
  seeds: ['001'],
  explanation: {
    meaning:
      'A resumption or replay was served to a principal other than the owner of the session whose events were replayed (the presented session, an earlier incarnation of its id, or another session reached through a foreign Last-Event-ID or a replayed event another session sent).',
    whyItBreaks:
      'Neither a session id nor an event id proves who the client is. Replaying to another principal hands it the owner\'s events (sampling prompts, tool results): a confidentiality breach.',
    shouldHave:
      'Bind each session to the principal that created it, check that binding on every reconnect and POST, and reject (403 or 404) a resumption by anyone else.',
  },
  live: { reads: ['event-id-owners', 'sessions-on-conn'], settles: 'at-once', rejudges: ['event-id-senders'] },
  detect: (ctx) => crossPrincipalReplay(ctx.db, ctx.opts, ctx.handOver),
});
