// The knobs of the decision boundary. Making them explicit is what lets the
// analyzer ask "what if the server had kept events for two minutes?".

import { PROTOCOL_REVISIONS, type ProtocolRevision } from './revisions.js';

/**
 * How long events stay replayable.
 * - `'as-logged'`: retained unless the log shows it trimmed (`buffer.trimmed`) or the
 *   session's event log evicted (`session.evicted` with `log_evicted` absent or true).
 * - numeric: the what-if world's own retention; `buffer.trimmed` records are ignored, an
 *   evicted session log still counts. An absent limit is no limit.
 */
export type Retention = { maxAgeMs?: number; maxEvents?: number } | 'as-logged';

export interface Policy {
  retention: Retention;
  /** How long a prior writer may stay unfenced after a rejected reconnect (stale-writer rule). */
  fenceGraceMs: number;
  /** An unresumable Last-Event-ID: reject with 409, or serve a fresh session and signal the reset. */
  unresumable: 'reject' | 'reset';
  /** On attach, pending server requests are re-emitted on the new stream, or cancelled. */
  pendingOnAttach: 'reemit' | 'cancel';
  /** 404-storm: this many POSTs answered 404 ... */
  stormCount: number;
  /** ... within this window. */
  stormWindowMs: number;
  /** duplicate-tool-call: the same tool and args by one principal within this window. */
  duplicateCallWindowMs: number;
  /**
   * The protocol revision whose rules decide (see REVISION_RULES). `'as-logged'` (the default,
   * also when absent): the request's own `protocolVersion`, else the session's (the revision
   * its records log: EngineState.protocolVersion), else 2025-11-25. A revision here decides every request by that revision,
   * whatever was logged: under 2026-07-28 a GET is a 405, `initialize` a 400, and any other
   * request is served on its own, `Mcp-Session-Id` and `Last-Event-ID` ignored, nothing minted
   * or replayed.
   */
  protocolVersion?: ProtocolRevision | 'as-logged';
}

export const DEFAULT_POLICY: Readonly<Policy> = Object.freeze({
  retention: 'as-logged',
  fenceGraceMs: 5000,
  unresumable: 'reject',
  pendingOnAttach: 'reemit',
  stormCount: 5,
  stormWindowMs: 10000,
  duplicateCallWindowMs: 60000,
});

/**
 * Fills a partial policy from DEFAULT_POLICY and validates it.
 * @throws RangeError naming the field, for a negative or non-finite number or an unknown choice.
 */
export function resolvePolicy(partial: Partial<Policy> = {}): Policy {
  const defined = Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined));
  const policy: Policy = { ...DEFAULT_POLICY, ...defined };
  validateRetention(policy.retention);
  requireDuration('fenceGraceMs', policy.fenceGraceMs);
  requireDuration('stormWindowMs', policy.stormWindowMs);
  requireDuration('duplicateCallWindowMs', policy.duplicateCallWindowMs);
  if (!Number.isInteger(policy.stormCount) || policy.stormCount < 1) {
    throw new RangeError(`policy.stormCount must be an integer of at least 1, got ${String(policy.stormCount)}`);
  }
  requireChoice('unresumable', policy.unresumable, ['reject', 'reset']);
  requireChoice('pendingOnAttach', policy.pendingOnAttach, ['reemit', 'cancel']);
  if (policy.protocolVersion !== undefined) requireChoice('protocolVersion', policy.protocolVersion, ['as-logged', ...PROTOCOL_REVISIONS]);
  return policy;
}

function validateRetention(retention: Retention): void {
  if (retention === 'as-logged') return;
  if (typeof retention !== 'object' || retention === null) {
    throw new RangeError(`policy.retention must be 'as-logged' or { maxAgeMs?, maxEvents? }, got ${String(retention)}`);
  }
  if (retention.maxAgeMs !== undefined) requireDuration('retention.maxAgeMs', retention.maxAgeMs);
  if (retention.maxEvents !== undefined && (!Number.isInteger(retention.maxEvents) || retention.maxEvents < 0)) {
    throw new RangeError(`policy.retention.maxEvents must be a non-negative integer, got ${String(retention.maxEvents)}`);
  }
}

function requireDuration(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`policy.${name} must be a non-negative number of milliseconds, got ${String(value)}`);
  }
}

function requireChoice(name: string, value: string, choices: string[]): void {
  if (!choices.includes(value)) {
    throw new RangeError(`policy.${name} must be one of ${choices.join(', ')}, got ${String(value)}`);
  }
}
