import { servingIncarnation, type EngineDecision, type Policy } from '../engine/index.js';
import { seconds } from '../model/phrasing.js';
import type { Db } from '../store/db.js';
import { decisionEvidence } from '../replay/decision-evidence.js';
import { forEachUpgrade, type ReplayOptions, type UpgradePoint } from '../replay/engine-replay.js';
import { reDecide, type Unresumable } from '../replay/re-decide.js';
import { isRetentionShortfall } from './retention-shortfall.js';
import type { LoggedUpgrade } from '../replay/stored-record.js';
import type { DecisionSummary } from './types.js';
import { requestSubject } from '../replay/decision-wording.js';

// Every logged reconnect decided twice by the engine, as logged and under the
// what-if policy, in one replay of the log.

/** Reasons a revision gives before it looks at any session or position (see the engine's decide). */
const REFUSED_BY_REVISION: ReadonlySet<string> = new Set(['method_not_allowed', 'initialize_unsupported', 'stateless_request']);

export interface ReplayPolicy {
  policy: Policy;
  unresumable: Unresumable;
}

/**
 * A flip as kept until the report: the few fields the report reads. Kept whole, a flip held the logged
 * upgrade with its engine record and both decisions with their replay lists: at 1M production lines
 * `--protocol 2026-07-28` flips 62,338 reconnects, and held them in 767 MB.
 */
export interface RawFlip {
  upgrade: Pick<LoggedUpgrade, 'id' | 'tsMs' | 'session' | 'lastEventId' | 'decision' | 'status'>;
  before: DecisionSummary;
  after: DecisionSummary;
  why: string;
  /** Record ids: the lines behind the rejecting decision, then the upgrade. */
  evidenceIds: number[];
}

export interface ReDecided {
  flips: RawFlip[];
  /** Upgrades whose short replay the logged retention caused and the what-if retention would not have. */
  retentionShortfalls: Set<number>;
  /** Reconnects whose position the change keeps, still refused for another reason: "7f3a91 from 1101 (the session state changed after event 1101)". */
  stillRefused: string[];
}

export function reDecideAll(db: Db, before: ReplayPolicy, after: ReplayPolicy, changeWords: string, opts: ReplayOptions = {}): ReDecided {
  const flips: RawFlip[] = [];
  const retentionShortfalls = new Set<number>();
  const stillRefused: string[] = [];
  forEachUpgrade(db, (p) => {
    if (p.unknowable !== undefined) return;
    if (isRetentionShortfall(p, before.policy, after.policy)) retentionShortfalls.add(p.upgrade.id);
    const was = reDecide(p, before.policy, before.unresumable);
    const would = reDecide(p, after.policy, after.unresumable);
    if (was.decision === would.decision) {
      // A revision that refuses the request outright keeps no position at all.
      if (was.checks.includes('position_evicted') && would.checks.length > 0 && !would.checks.includes('position_evicted') && !REFUSED_BY_REVISION.has(would.reason)) {
        stillRefused.push(`${requestSubject(p.request)} (${checkWords(p, would.checks)})`);
      }
      return;
    }
    const rejecting = was.checks.length > 0 ? { d: was, policy: before.policy } : { d: would, policy: after.policy };
    const { id, tsMs, session, lastEventId, decision, status } = p.upgrade;
    flips.push({
      upgrade: { id, tsMs, session, lastEventId, decision, status },
      before: summary(was),
      after: summary(would),
      why: flipWhy(p, was, would, changeWords),
      evidenceIds: [...decisionEvidence(p, rejecting.d, rejecting.policy), p.upgrade.id],
    });
  }, opts);
  flips.sort((a, b) => a.upgrade.tsMs - b.upgrade.tsMs || a.upgrade.id - b.upgrade.id);
  return { flips, retentionShortfalls, stillRefused };
}

function summary(d: EngineDecision): DecisionSummary {
  return { decision: d.decision, status: d.status, reason: d.reason, checks: d.checks };
}

/** "as logged: event 5 no longer retained (sent 60 s before); with 120 s retention every check passes". */
function flipWhy(p: UpgradePoint, was: EngineDecision, would: EngineDecision, changeWords: string): string {
  const accepts = (d: EngineDecision) => d.decision === 'resume' || d.decision === 'attach';
  if (accepts(would)) return `as logged: ${checkWords(p, was.checks)}; with ${changeWords} every check passes`;
  if (accepts(was)) return `with ${changeWords}: ${checkWords(p, would.checks)}`;
  return `with ${changeWords}: ${checkWords(p, would.checks)}, answered ${answerWords(would)} instead of ${answerWords(was).replace(/^by /, '')}`;
}

function answerWords(d: EngineDecision): string {
  if (d.decision !== 'fresh') return `${d.status}`;
  if (d.resetSignalled) return 'by a signalled reset';
  return d.newSession ? 'by a new session' : 'on its own, with no session';
}

function checkWords(p: UpgradePoint, checks: string[]): string {
  const id = p.request.lastEventId;
  const age = positionAgeMs(p);
  const words: Record<string, string> = {
    position_evicted: `event ${id} no longer retained${age === undefined ? '' : ` (sent ${seconds(age)} before the reconnect)`}`,
    state_changed_in_window: `the session state changed after event ${id}`,
    answered_request_in_window: 'an answered request lies in the replay window',
    prior_writer_unfenceable: 'a writer on another node cannot be fenced',
    unknown_event_id: `event ${id} was never emitted in this session`,
    foreign_event_id: `event ${id} belongs to another session`,
    method_not_allowed: 'a GET is refused (405): the revision has no GET stream and no resumption',
    initialize_unsupported: 'initialize is refused (400): the revision has no handshake and no sessions',
  };
  return checks.map((c) => words[c] ?? c).join(', ');
}

function positionAgeMs(p: UpgradePoint): number | undefined {
  if (p.state === undefined || p.request.lastEventId === null) return undefined;
  const event = servingIncarnation(p.state, p.request)?.events.get(String(p.request.lastEventId));
  return event === undefined ? undefined : p.upgrade.tsMs - event.tsMs;
}
