import { decide, resolvePolicy, type DecisionClass, type EngineDecision, type Policy } from '../engine/index.js';
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
  return decide(p.state, p.request, { ...policy, unresumable: chosen });
}

/** The class of the server's answer: an error status is a reject whatever the decision field says. */
export function loggedClass(u: LoggedUpgrade): DecisionClass | undefined {
  if (u.status !== undefined && (u.status < 200 || u.status >= 300)) return 'reject';
  return u.decision;
}

export function isSignalledReset(u: LoggedUpgrade): boolean {
  return u.decision === 'fresh' && u.resetSignalled === true && u.newSession !== undefined && u.newSession !== u.session;
}
