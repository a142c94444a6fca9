import { decide, resolvePolicy, unresumable as unresumableAnswer, type DecisionClass, type EngineDecision, type Policy } from '../engine/index.js';
import type { DetectOptions } from '../model/thresholds.js';
import type { UpgradePoint } from './engine-replay.js';
import type { LoggedUpgrade } from './stored-record.js';

// Re-asking a logged reconnect: the engine's answer under a policy, and the
// class of answer the server logged, so the two can be compared.

/**
 * What a correct server does with an unresumable Last-Event-ID. 'as-logged' takes the
 * server's own choice: a signalled reset (a new distinct session id and reset_signalled)
 * is as correct as a 409, so the cross-check does not hold one against the other.
 */
export type Unresumable = Policy['unresumable'] | 'as-logged';

/** The engine policy behind the analyzer's thresholds: its defaults, with the detect options' retention and thresholds. */
export function policyOf(opts: DetectOptions): Policy {
  return resolvePolicy({
    retention: opts.retention,
    fenceGraceMs: opts.fenceGraceMs,
    stormCount: opts.stormCount,
    stormWindowMs: opts.stormWindowMs,
    duplicateCallWindowMs: opts.duplicateCallWindowMs,
  });
}

export function reDecide(p: UpgradePoint, policy: Policy, unresumable: Unresumable): EngineDecision {
  const chosen = unresumable === 'as-logged' ? (isSignalledReset(p.upgrade) ? 'reset' : 'reject') : unresumable;
  const asked = { ...policy, unresumable: chosen };
  const d = decide(p.state, p.request, asked);
  return positionAboveLoggedStart(p, d) ? unresumableAnswer(['unknown_event_id'], asked) : d;
}

/**
 * A log that starts mid-session shows no creation, so the engine answers 404 (session_not_found) to every
 * reconnect. The replay judges such a reconnect only where any earlier history refuses it too
 * (engine-replay.ts, rejectedWhateverCameBefore): an ended session, whose 404 stands, or a numeric
 * Last-Event-ID above every id the session sent. A server that had the session refuses that one as an
 * unknown position (409), not as an unknown session: the log shows the session live.
 */
function positionAboveLoggedStart(p: UpgradePoint, d: EngineDecision): boolean {
  if (d.reason !== 'session_not_found' || p.state === undefined || p.request.lastEventId == null) return false;
  if (p.state.incarnations.some((i) => i.created)) return false;
  const last = p.state.incarnations.at(-1);
  return last !== undefined && last.ended === undefined;
}

/** The class of the server's answer: an error status is a reject whatever the decision field says. */
export function loggedClass(u: LoggedUpgrade): DecisionClass | undefined {
  if (u.status !== undefined && (u.status < 200 || u.status >= 300)) return 'reject';
  return u.decision;
}

function isSignalledReset(u: LoggedUpgrade): boolean {
  return u.decision === 'fresh' && u.resetSignalled === true && u.newSession !== undefined && u.newSession !== u.session;
}
