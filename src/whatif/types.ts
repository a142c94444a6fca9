import type { DecisionClass, Retention } from '../engine/index.js';
import type { Finding } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import type { DetectOptions } from '../detect/types.js';
import type { Unresumable } from '../replay/re-decide.js';

/** What the what-if world does differently; anything absent stays as logged (or as configured). */
export interface PolicyChange {
  retention?: { maxAgeMs?: number; maxEvents?: number };
  fenceGraceMs?: number;
  stormCount?: number;
  stormWindowMs?: number;
  duplicateCallWindowMs?: number;
  unresumable?: 'reject' | 'reset';
}

export interface WhatIfOptions {
  /** The world as logged: configured thresholds (default: the analyzer's); retention is always as logged. */
  baseline?: Partial<Omit<DetectOptions, 'retention'>>;
  disabled?: readonly string[];
  change: PolicyChange;
}

/** The what-if world's policy in full. */
export interface WhatIfPolicy {
  retention: Retention;
  fenceGraceMs: number;
  unresumable: Unresumable;
  stormCount: number;
  stormWindowMs: number;
  duplicateCallWindowMs: number;
}

export interface DecisionSummary {
  decision: DecisionClass;
  status: number;
  reason: string;
  checks: string[];
}

/** A logged reconnect the engine decides one way as logged and another way under the change. */
export interface Flip {
  session: string | null;
  at: string;
  last_event_id: string | null;
  /** What the server itself answered. */
  logged: { decision: string | null; status: number | null };
  before: DecisionSummary;
  after: DecisionSummary;
  why: string;
  /** The lines behind the decision that rejects, then the upgrade. */
  evidence: LineRef[];
}

export interface WhatIfReport {
  version: 1;
  policy: WhatIfPolicy;
  /** The answers an incident review asks for, one sentence each. */
  headline: string[];
  before: { by_rule: Record<string, number> };
  after: { by_rule: Record<string, number> };
  disappeared: Finding[];
  appeared: Finding[];
  flips: Flip[];
}
