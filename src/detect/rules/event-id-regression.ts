import type { NotKnowable } from '../../model/finding.js';
import { compareIds, orderedByEmission } from '../../model/event-order.js';
import { proxyReplayStart } from '../facts/proxy-view.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import { at, idList, ordinal } from '../../model/phrasing.js';
import type { DetectorOutput, RawFinding } from '../types.js';
import { defineRule } from '../rule.js';
import { ReconnectFacts } from '../facts/reconnect-facts.js';
import { appendAll } from '../../model/arrays.js';

// event-id-regression: one event id emitted twice under one session id (SQL:
// queries/rules/event-id-regression.sql), or a resumption that replayed events at or
// before its Last-Event-ID. Both mean the event sequence restarted: a fork.

interface DuplicateRow {
  session: string;
  at_ms: number;
  event_id: string;
  /** Which emission of the id under the session this is: 2 the second, and so on. */
  nth: number;
  stream: string;
  first_stream: string;
  first_ts: number;
  reused: number;
  reused_ids: string;
  evidence: string;
}

function judgeEventIdRegressions(facts: ReconnectFacts): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  const forkSeen = new Set<string>();
  for (const d of eachQueryRow<DuplicateRow>(facts.db, 'rules/event-id-regression', facts.opts)) {
    const others = String(d.reused_ids).split(', ').filter((id) => id !== String(d.event_id));
    findings.push({
      rule: 'event-id-regression',
      session: d.session,
      atMs: d.at_ms,
      message:
        `event id ${d.event_id} was sent ${timesWord(d.nth)} under session ${d.session}: on stream ${d.first_stream} at ${at(d.first_ts)} and again on stream ${d.stream}` +
        `${others.length > 0 ? ` (with ${idList(others)})` : ''}: the event sequence restarted, the mark of a fork`,
      evidenceIds: evidenceIds(d.evidence),
    });
  }
  for (const r of facts.resumptions) {
    const regressed = (first: string, evidence: number[]) =>
      findings.push({
        rule: 'event-id-regression',
        session: r.session,
        atMs: r.atMs,
        message: `resumed ${r.session} from event ${r.last.eventId} but replayed event ${first}, at or before it: the event sequence restarted, the mark of a fork`,
        evidenceIds: [...evidence, r.upgradeId],
      });
    if (facts.isProxyOnly(r.session)) {
      const start = proxyReplayStart(facts.proxy, r);
      if (start.kind === 'regressed') {
        regressed(`${start.first} (the first id the proxy saw)`, start.seenIn === null ? [] : [start.seenIn]);
        forkSeen.add(r.session);
      } else {
        notKnowable.push({
          rule: 'event-id-regression',
          session: r.session,
          reason: `proxy log only: the server's emissions are not visible, only the ids the proxy saw go by, so an event id the server sent twice in ${r.session} cannot be seen`,
        });
      }
      continue;
    }
    const back = r.replays.find((ref) => {
      const order = compareIds(ref, r.last);
      return order !== undefined && order <= 0;
    });
    if (back === undefined) continue;
    const byEmission = orderedByEmission(back, r.last) && back.eventId !== r.last.eventId;
    regressed(back.role === 'first_seen' ? `${back.eventId} (the first id the proxy saw)` : back.eventId, [
      ...(byEmission ? [back.own!.recordId, r.last.own!.recordId] : []),
      back.namedBy,
    ]);
  }
  appendAll(findings, sentAgainSeenByProxy(facts));
  // the ids the proxy saw showed the fork: the session's other resumptions need not say it could not be seen
  return { findings, notKnowable: notKnowable.filter((n) => n.session === null || !forkSeen.has(n.session)) };
}

/** "twice", or "a 3rd time" where the lane re-used an id another lane had re-used already. */
function timesWord(nth: number): string {
  return nth === 2 ? 'twice' : `a ${ordinal(nth)} time`;
}

/**
 * A proxy-only log shows no emissions, but the response to a new request (no upgrade: a POST's
 * stream) carries only events sent for it: an id the proxy saw go by earlier in the session was
 * sent twice. One finding per session, at the first such response.
 */
function sentAgainSeenByProxy(facts: ReconnectFacts): RawFinding[] {
  const out: RawFinding[] = [];
  for (const [session, sightings] of facts.proxy.sightings) {
    const seen = new Map<string, number>();
    for (const s of sightings) {
      const again = s.upgradeId === null ? s.ids.filter((id) => seen.has(id)) : [];
      if (again.length > 0) {
        out.push({
          rule: 'event-id-regression',
          session,
          atMs: s.atMs,
          message:
            `event ${again.length === 1 ? 'id' : 'ids'} ${idList(again)} went by again in the response to a new request in ${session}, after the proxy had seen ` +
            `${again.length === 1 ? 'it' : 'them'} delivered earlier (proxy log only: the server's emissions are not visible): the event sequence restarted, the mark of a fork`,
          evidenceIds: [seen.get(again[0]!)!, s.recordId],
        });
        break;
      }
      for (const id of s.ids) if (!seen.has(id)) seen.set(id, s.recordId);
    }
  }
  return out;
}

export default defineRule({
  id: 'event-id-regression',
  severity: 'error',
  family: 'replay-integrity',
  summary: 'An event id was emitted twice in a session, or a replay went backwards: the mark of a fork.',
  seeds: ['004'],
  explanation: {
    meaning:
      'One event id was emitted twice under one session id, or a resumption replayed events at or before its own Last-Event-ID: the event sequence restarted.',
    whyItBreaks:
      'Event ids must be unique across all streams of a session, or a position means nothing. A restarted sequence is the mark of a fork: a new session or a reset buffer answering under the old session id, whose events the client deduplicates against ids it has already seen and silently drops.',
    shouldHave:
      'Never reuse an event id within a session, and replay strictly after Last-Event-ID. When the session state was lost, answer 404 so that the client re-initializes, or mint a new session id and signal the reset.',
  },
  live: { reads: [], settles: 'at-once' },
  facts: [ReconnectFacts.of],
  detect: (ctx) => judgeEventIdRegressions(ctx.shared(ReconnectFacts.of)),
});
