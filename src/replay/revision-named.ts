import { REVISION_RULES, revisionOf, type ProtocolRevision, type RevisionRules } from '../engine/revisions.js';

// How a finding's message names the MCP revision its request or session speaks, where the rule's
// advice depends on it ("at protocol 2025-03-26"), and how `explain` reads it back to pick the
// advice that fits (RuleExplanation.fitted): the message is the finding's only per-finding text,
// so what it says and what explain advises cannot disagree.

/** "at protocol 2025-03-26". */
export function atProtocol(version: string): string {
  return `at protocol ${version}`;
}

/** The revision a message names with atProtocol, as the engine places it; undefined where it names none. */
export function revisionNamed(message: string): { version: string; revision: ProtocolRevision; rules: Readonly<RevisionRules> } | undefined {
  const version = /\bat protocol (\d{4}-\d{2}-\d{2})\b/.exec(message)?.[1];
  const revision = revisionOf(version);
  return version === undefined || revision === undefined ? undefined : { version, revision, rules: REVISION_RULES[revision] };
}
