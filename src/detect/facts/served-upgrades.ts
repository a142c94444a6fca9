import type { Db } from '../../store/db.js';
import { FactTable } from '../fact-table.js';
import { eachQueryRow } from '../query-rows.js';
import type { DetectOptions } from '../types.js';
import { isStatelessEra } from '../../model/record.js';

// queries/facts/session-state-at-upgrade.sql: for every served upgrade (2xx resume,
// attach or fresh presenting a session id), whether that session was live on
// the node that answered, ended, created only on another node, or never
// created in the log. A session created on another node is live on the one
// that answered once the log shows that node sharing its state
// (queries/facts/node-continuations.sql).

export type SessionState = 'live' | 'ended' | 'other-node' | 'never-created' | 'answered-404';

/** A lifecycle record of a session: its creation, its end, or a server's 404 for it. */
export interface LifeRecord {
  recordId: number;
  kind: string;
  atMs: number;
  node: string | null;
  reason: string | null;
}

export interface ServedUpgrade {
  upgradeId: number;
  session: string;
  atMs: number;
  origin: 'server' | 'proxy';
  node: string | null;
  decision: 'resume' | 'attach' | 'fresh';
  status: number;
  lastEventId: string | null;
  newSession: string | null;
  resetSignalled: boolean | null;
  state: SessionState;
  /** The lifecycle record that decided the state (its creation, or its end). */
  life: LifeRecord | null;
  /**
   * For a state of answered-404: the end (termination, eviction, DELETE) that 404 follows, with no creation
   * between. The 404 makes the id unknown to silent-fork; the session is still the ended one resume-after-end judges.
   */
  endedBefore: LifeRecord | null;
  /** A server record of the session before the upgrade although the log never created it: the log started late. */
  priorServerId: number | null;
  /** The session.created that answered the upgrade by re-minting the presented id. */
  remintedId: number | null;
  /** The protocol version the upgrade's own line carries (not its session's). */
  version: string | null;
}

interface Row {
  upgrade_id: number;
  session: string;
  at_ms: number;
  origin: 'server' | 'proxy';
  node: string | null;
  decision: 'resume' | 'attach' | 'fresh';
  status: number;
  last_event_id: string | null;
  new_session: string | null;
  reset_signalled: number | null;
  state: SessionState;
  version: string | null;
  life_id: number | null;
  life_kind: string | null;
  life_ts: number | null;
  life_node: string | null;
  life_reason: string | null;
  ended_id: number | null;
  ended_kind: string | null;
  ended_ts: number | null;
  ended_node: string | null;
  ended_reason: string | null;
  prior_server_id: number | null;
  reminted_id: number | null;
}

/** Upgrades answered by a node the log shows sharing the session's state with the node that created it. */
function sharedStoreUpgrades(db: Db, opts: DetectOptions): Set<number> | 'all' {
  if (opts.sharedSessionStore) return 'all';
  return new Set(Array.from(eachQueryRow<{ upgrade_id: number }>(db, 'facts/node-continuations', opts), (r) => r.upgrade_id));
}

/** The served upgrades, read one at a time in time order, as often as a rule asks: a shared fact. */
export interface ServedUpgrades extends Iterable<ServedUpgrade> {
  /** Lets the table go (the run calls it after the last rule that declares this fact). */
  release(): void;
}

export function loadServedUpgrades(db: Db, opts: DetectOptions): ServedUpgrades {
  const shared = sharedStoreUpgrades(db, opts);
  const table = new FactTable<Row>(db, 'facts/session-state-at-upgrade', opts);
  return {
    *[Symbol.iterator]() {
      for (const r of table.rows()) yield toServed(r, shared);
    },
    release: () => table.drop(),
  };
}

function toServed(r: Row, shared: Set<number> | 'all'): ServedUpgrade {
  return {
    upgradeId: r.upgrade_id,
    session: r.session,
    atMs: r.at_ms,
    origin: r.origin,
    node: r.node,
    decision: r.decision,
    status: r.status,
    lastEventId: r.last_event_id === null ? null : String(r.last_event_id),
    newSession: r.new_session,
    resetSignalled: r.reset_signalled === null ? null : r.reset_signalled === 1,
    state: r.state === 'other-node' && (shared === 'all' || shared.has(r.upgrade_id)) ? 'live' : r.state,
    life:
      r.life_id === null ? null : { recordId: r.life_id, kind: r.life_kind!, atMs: r.life_ts!, node: r.life_node, reason: r.life_reason },
    endedBefore:
      r.ended_id === null ? null : { recordId: r.ended_id, kind: r.ended_kind!, atMs: r.ended_ts!, node: r.ended_node, reason: r.ended_reason },
    priorServerId: r.prior_server_id,
    remintedId: r.reminted_id,
    version: r.version,
  };
}

/**
 * A request of the stateless era (its own version 2026-07-28 or later) served fresh with no mint: the server
 * ignored the Mcp-Session-Id and Last-Event-ID it carried, as that revision says it should (transports,
 * Backward Compatibility). It forks, resets and resumes nothing of the session it names.
 */
export function ignoredStaleHeaders(u: ServedUpgrade): boolean {
  return isStatelessEra(u.version ?? undefined) && u.decision === 'fresh' && u.newSession === null && u.remintedId === null;
}

/** "terminated (client_delete)", "evicted (idle_timeout)", or a DELETE a proxy saw answered. */
export function endedHow(life: LifeRecord): string {
  const reason = life.reason ? ` (${life.reason})` : '';
  if (life.kind === 'session.evicted') return `evicted${reason}`;
  if (life.kind === 'http.delete') return 'terminated (a DELETE was answered 2xx)';
  if (life.kind === 'answered.404') return 'answered 404 by the server';
  return `terminated${reason}`;
}

/** What the client asked for, in words: "a resume from event 7", "an attach", "a fresh request". */
export function requestWords(u: ServedUpgrade): string {
  if (u.decision === 'resume') return `a resume from event ${u.lastEventId ?? '(none)'}`;
  if (u.decision === 'attach') return 'an attach';
  return `a request${u.lastEventId !== null ? ` with Last-Event-ID ${u.lastEventId}` : ''} served fresh`;
}

/**
 * A discontinuity is told to the client only by both a new distinct session id
 * and reset_signalled. A server that logs no reset_signalled did not send one; a
 * proxy that logs none may just not have parsed the frame.
 */
export function resetDisclosure(u: ServedUpgrade): { told: boolean; unseen: boolean; missing: string } {
  const newId = u.newSession !== null && u.newSession !== u.session;
  const resetUnseen = u.origin === 'proxy' && u.resetSignalled === null;
  const reset = u.resetSignalled === true;
  const missing = [!newId && 'no new session id', !reset && !resetUnseen && 'no reset signal'].filter(Boolean).join(' and ');
  return { told: newId && reset, unseen: newId && resetUnseen, missing };
}
