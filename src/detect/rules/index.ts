import silentTruncation from './silent-truncation.js';
import phantomEventId from './phantom-event-id.js';
import foreignEventId from './foreign-event-id.js';
import eventIdWithoutSession from './event-id-without-session.js';
import eventIdRegression from './event-id-regression.js';
import resumeAfterEnd from './resume-after-end.js';
import resumeAcrossStateChange from './resume-across-state-change.js';
import silentFork from './silent-fork.js';
import silentReset from './silent-reset.js';
import sessionIdReuse from './session-id-reuse.js';
import replayOnAttach from './replay-on-attach.js';
import pendingNotReemitted from './pending-not-reemitted.js';
import duplicateReemit from './duplicate-reemit.js';
import dualWriter from './dual-writer.js';
import writeToSupersededStream from './write-to-superseded-stream.js';
import answeredRequestReplayed from './answered-request-replayed.js';
import orphanedRequest from './orphaned-request.js';
import staleWriterBlocksReconnect from './stale-writer-blocks-reconnect.js';
import strandedResponse from './stranded-response.js';
import crossPrincipalReplay from './cross-principal-replay.js';
import storm404 from './404-storm.js';
import duplicateToolCall from './duplicate-tool-call.js';
import sessionInStatelessEra from './session-in-stateless-era.js';
import replayInStatelessEra from './replay-in-stateless-era.js';
import engineDivergence from './engine-divergence.js';

// The violation catalogue (docs/rules.md), one module per rule, in catalogue
// order: reports, `rules`, SARIF and the docs list rules in this order. Ids and
// severities are a public interface: reports, baselines and CI gates name them.
// Adding a rule: its module here, queries/rules/<id>.sql, test/rules/<id>.test.ts
// and its section in docs/rules.md (test/rules/catalogue.test.ts checks all four).
export const RULES = [
  silentTruncation,
  phantomEventId,
  foreignEventId,
  eventIdWithoutSession,
  eventIdRegression,
  resumeAfterEnd,
  resumeAcrossStateChange,
  silentFork,
  silentReset,
  sessionIdReuse,
  replayOnAttach,
  pendingNotReemitted,
  duplicateReemit,
  dualWriter,
  writeToSupersededStream,
  answeredRequestReplayed,
  strandedResponse,
  orphanedRequest,
  staleWriterBlocksReconnect,
  crossPrincipalReplay,
  storm404,
  duplicateToolCall,
  sessionInStatelessEra,
  replayInStatelessEra,
  engineDivergence,
] as const;

export type RuleId = (typeof RULES)[number]['id'];
export type Rule = (typeof RULES)[number];

export const RULE_IDS: readonly RuleId[] = RULES.map((r) => r.id);

const BY_ID = new Map<string, Rule>(RULES.map((r) => [r.id, r]));

export function isRuleId(s: string): s is RuleId {
  return BY_ID.has(s);
}

/** The module of a rule id a report names; throws on an id no rule has (a bug, not input). */
export function ruleOf(id: string): Rule {
  const rule = BY_ID.get(id);
  if (rule === undefined) throw new Error(`no rule ${id}`);
  return rule;
}

const ORDER = new Map<string, number>(RULES.map((r, i) => [r.id, i]));

/** A rule's place in the catalogue (reports list rules in this order); -1 for an id no rule has. */
export function catalogueOrder(id: string): number {
  return ORDER.get(id) ?? -1;
}

/** Counts per rule id as a report's `by_rule`: in catalogue order, only the catalogue's rules that have some. */
export function countsInCatalogueOrder(counts: ReadonlyMap<string, number>): Record<string, number> {
  const byRule: Record<string, number> = {};
  for (const id of RULE_IDS) {
    const n = counts.get(id);
    if (n !== undefined) byRule[id] = n;
  }
  return byRule;
}
