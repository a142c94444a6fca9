import type { Rejudge } from '../detect/rule.js';
import { RULES } from '../detect/rules/index.js';
import type { Db } from '../store/db.js';
import type { ContextIndex } from './context-index.js';
import { unplacedReferences } from './context-needs.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../model/thresholds.js';

// The sessions a batch did not touch whose verdict it can still change: each
// rule module declares what it needs judged again (detect/rule.ts, `live.rejudges`),
// implemented here once. Without them, live mode kept a session's verdict as it
// stood when that session was last touched, where analyze, reading the whole
// log, sees what came after (a 30k-line fuzzed log: a retry analyze withdrew
// once the first session was used again 7 s later).

/** What the rules that run (all but the disabled ones) need judged again. */
export function neededRejudging(disabled: readonly string[]): Set<Rejudge> {
  const off = new Set(disabled);
  return new Set(RULES.filter((r) => !off.has(r.id)).flatMap((r) => r.live.rejudges ?? []));
}

/** What live mode knows beside the store: a session's current findings, by rule. */
export type HoldsFinding = (session: string, rule: string) => boolean;

/** The sessions beside `touched` to judge again for the records above `fromId`. */
export function dependentSessions(
  db: Db,
  index: ContextIndex,
  touched: ReadonlySet<string>,
  fromId: number,
  needs: ReadonlySet<Rejudge>,
  dupWindowMs: number,
  holds: HoldsFinding,
): Set<string> {
  const out = new Set<string>();
  if (needs.has('retries-by-principal')) retriesByPrincipal(db, index, touched, fromId, dupWindowMs, holds, out);
  if (needs.has('event-id-senders')) eventIdSenders(db, index, fromId, out);
  return out;
}

/**
 * Each round: what the new records' reconnects name that no emission of their own session places by then
 * (event-id-senders). One noted so that its own session's emission comes later stays noted: at worst its
 * session is judged once more.
 */
export function noteUnplacedReferences(db: Db, index: ContextIndex, fromId: number, needs: ReadonlySet<Rejudge>): void {
  if (!needs.has('event-id-senders')) return;
  for (const r of unplacedReferences(db, { after: fromId })) index.noteUnplaced(r.event_id, r.session, r.ts_ms);
}

/**
 * Who sent the event id a reconnect named, where its own session had not: foreign-event-id names the
 * first other session by time, phantom-event-id fires where none did (or none before the clock-skew
 * allowance after it), cross-principal-replay asks whose events were served. Another node's file read
 * later may hold that sender, so a batch that shows another session sending such an id up to the
 * allowance after the reconnect has that reconnect's session judged again.
 */
function eventIdSenders(db: Db, index: ContextIndex, fromId: number, out: Set<string>): void {
  const sent = db.prepare(
    "SELECT session, event_id, ts_ms FROM records WHERE id > ? AND +kind = 'event.sent' AND event_id IS NOT NULL AND session IS NOT NULL",
  );
  for (const e of sent.iterate(fromId) as Iterable<{ session: string; event_id: string; ts_ms: number }>) {
    const named = index.unplacedOf(e.event_id);
    if (named === undefined) continue;
    for (const [session, ts] of named) if (session !== e.session && e.ts_ms <= ts + CLOCK_SKEW_ALLOWANCE_MS) out.add(session);
  }
}

/**
 * A retry (duplicate-tool-call) pairs two executions for one principal within the window, and is decided
 * by what lies between them (a 404, an end, a new session, a stream closed, a response delivered), or by
 * whether the client went on using the first session after it. The batch's lines, for a principal its
 * sessions name, may be either:
 * - what lies between: the later executions at or after the batch's earliest time that repeat one made
 *   by its latest are judged again;
 * - the first session used again: the retries of its executions (made up to twice the window before the
 *   batch) that stand as findings now are judged again, to be withdrawn.
 * A session the client comes back to after longer is not looked for. Judging every repeat within the
 * window around the batch instead cost a catch-up over 1M production lines 6 times the time (a service
 * account runs the same tools in every session).
 */
function retriesByPrincipal(db: Db, index: ContextIndex, touched: ReadonlySet<string>, fromId: number, windowMs: number, holds: HoldsFinding, out: Set<string>): void {
  const span = db.prepare('SELECT min(ts_ms) AS lo, max(ts_ms) AS hi FROM records WHERE id > ?').get(fromId) as { lo: number | null; hi: number | null };
  if (span.lo === null || span.hi === null) return;
  const { lo, hi } = span;
  // The principals the batch's records name (a proxy's 404 for a session it never saw created names one), and those of its sessions.
  const principals = new Set(db.prepare('SELECT DISTINCT principal FROM records WHERE id > ? AND principal IS NOT NULL').pluck().all(fromId) as string[]);
  for (const s of touched) for (const p of index.principalsOf(s)) principals.add(p);
  for (const p of principals) {
    for (const later of index.callsOf(p, lo, hi + windowMs)) {
      if (!touched.has(later.session) && !out.has(later.session) && index.hasTwin(later.call, later.ts - windowMs, Math.min(later.ts, hi), later.id)) out.add(later.session);
    }
    for (const first of index.callsOf(p, lo - 2 * windowMs, hi)) {
      if (!touched.has(first.session)) continue;
      for (const later of index.twins(first.call, first.ts, first.ts + windowMs, first.id)) {
        if (!touched.has(later.session) && holds(later.session, 'duplicate-tool-call')) out.add(later.session);
      }
    }
  }
}
