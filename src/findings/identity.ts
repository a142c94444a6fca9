import { createHash } from 'node:crypto';
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
// differently, a line is added at the top, or the log is split into files.
//
// The exception is orphaned-request, whose `at` is the stranding until a later
// line times the request out, and then that time-out: keyed on it, a finding
// would change key as the log grows (announced twice in live mode, out of a
// baseline written before the time-out). It is the request that names it: the
// message up to its fate (request id, method, stream and what stranded it,
// with that time), which is the same whatever the log holds after it.
// stranded-response and session-in-stateless-era, also settled at the end of the
// log, complete at the record they cite first (the response stored, the session
// minted or echoed): their `at` does not move, and names them.

export type IdentifiedFinding = Pick<Finding, 'rule' | 'session' | 'at' | 'message'>;

/** The identity as a string: equal for the same fault, different otherwise. */
export function findingIdentity(f: IdentifiedFinding): string {
  // JSON of a tuple keeps field boundaries unambiguous ("a|b" + "c" vs "a" + "b|c").
  return JSON.stringify([f.rule, f.session, anchorOf(f)]);
}

/** The identity hashed to 16 hex digits: the baseline's key and SARIF's fingerprint. */
export function findingFingerprint(f: IdentifiedFinding): string {
  return createHash('sha256').update(findingIdentity(f)).digest('hex').slice(0, 16);
}

/**
 * An orphaned request's fate, the end of its message (detect/rules/orphaned-request.ts fateOf), which the
 * lines after the stranding change: timed out or still unanswered, whether a resumption replayed it (or
 * resumed from it) first, and how many answers were refused. Built of times and counts only, never of a
 * logged value, so that it is cut from the end unambiguously.
 */
const TIME = '[0-9T:.Z+-]+';
const REPLAYED = `it was replayed on the resumed lineage at ${TIME} but`;
const RECEIVED = `the client had received it \\(its event was the Last-Event-ID of a resumption at ${TIME}\\) but it`;
const UNTAKEN = `never answered, re-issued or cancelled before it timed out at ${TIME}`;
const ORPHAN_FATE = new RegExp(
  `; (?:it timed out at ${TIME} unanswered|it is still unanswered when the log ends` +
    `|${REPLAYED} ${UNTAKEN}|${RECEIVED} was ${UNTAKEN}|(?:${REPLAYED}|${RECEIVED}) is still unanswered when the log ends)` +
    `(?: \\(\\d+ answers? got an error status and (?:was|were) not taken\\))?$`,
);

function anchorOf(f: IdentifiedFinding): string {
  if (f.rule !== 'orphaned-request') return f.at;
  return `request ${f.message.replace(ORPHAN_FATE, '')}`;
}
