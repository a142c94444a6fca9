import { createHash } from 'node:crypto';
import { ruleOf } from '../detect/rules/index.js';
import type { Finding } from '../model/finding.js';

// What makes two findings one fault: in a baseline across re-runs, in SARIF's
// partialFingerprints across CI builds, in live mode across re-judgements, and
// in what-if between the world as logged and the world changed.
//
// The rule, the session and the moment the violation completes (`at`, the time
// of the record that completes it). Not the message: its wording counts what
// the log holds so far ("3 POSTs" becomes "5"; a dual writer "never closed" is
// "retired only at ..." once a later line retires it), so a baseline keyed on it
// stops suppressing a finding whose words change as the log grows. Not the
// evidence's file:line either: line numbers move whenever an export is cut
// differently. The exception is a rule settled at the end of the log
// (orphaned-request): its time is where the log ended, or a timeout, and moves
// as the log grows, so the line number of its first evidence says which request
// it is (the number only: one log read as a path, from stdin or gzipped is one log).

export type IdentifiedFinding = Pick<Finding, 'rule' | 'session' | 'at' | 'evidence'>;

/** The identity as a string: equal for the same fault, different otherwise. */
export function findingIdentity(f: IdentifiedFinding): string {
  // JSON of a tuple keeps field boundaries unambiguous ("a|b" + "c" vs "a" + "b|c").
  return JSON.stringify([f.rule, f.session, anchorOf(f)]);
}

/** The identity hashed to 16 hex digits: the baseline's key and SARIF's fingerprint. */
export function findingFingerprint(f: IdentifiedFinding): string {
  return createHash('sha256').update(findingIdentity(f)).digest('hex').slice(0, 16);
}

function anchorOf(f: IdentifiedFinding): string {
  if (ruleOf(f.rule).live.settles !== 'end-of-log') return f.at;
  const first = f.evidence[0];
  return first === undefined ? f.at : `line ${first.line}`;
}
