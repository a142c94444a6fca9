import { ruleOf } from '../detect/rules/index.js';
import type { FindingList, Report } from '../model/finding.js';
import type { RunEnd } from '../model/run-end.js';
import { meetsThreshold, type FailOn, type Severity } from '../model/severity.js';

// The CI gate's decisions, for `analyze` (a report, judged whole) and `watch` (findings judged as they come):
// 0 passes, 1 a finding at or above --fail-on, 2 an input that gave nothing to judge (or a run that failed).

export type ExitCode = 0 | 1 | 2;

/** A finding that fails the gate: at or above `failOn` (none with `never`). `watch` stops at the first. */
export function failsGate(severity: Severity, failOn: FailOn): boolean {
  return meetsThreshold(severity, failOn);
}

/**
 * The gate over a whole report: 1 when any finding is at or above `failOn`, else 0; 2 when an input was
 * unusable (`unusableInput`, the CLI's inputs; or the report's own list, the library's AnalyzedReport),
 * whatever the findings and whatever `failOn`, `never` included: a broken export never passes.
 */
export function exitCodeFor(report: Report<FindingList> & { unusable?: readonly unknown[] }, failOn: FailOn, opts: { unusableInput?: boolean } = {}): ExitCode {
  if (opts.unusableInput === true) return 2;
  if (report.unusable !== undefined && report.unusable.length > 0) return 2;
  const findings = report.findings;
  // A table's findings carry their rule's severity: its counts per rule answer without reading one.
  const failing = Array.isArray(findings)
    ? findings.some((f) => failsGate(f.severity, failOn))
    : [...findings.countByRule().keys()].some((rule) => failsGate(ruleOf(rule).severity, failOn));
  return failing ? 1 : 0;
}

/** Of two codes a run was given (a violation, a failed write, a bound reached), the one it exits with. */
export function worstCode(a: ExitCode, b: ExitCode): ExitCode {
  return Math.max(a, b) as ExitCode;
}

/** Ends after which a guard's inputs are judged: the run went as far as it was meant to (or was told to stop, as a CI step's timeout does). */
const JUDGED_ENDS: ReadonlySet<RunEnd> = new Set<RunEnd>(['idle', 'exit-after', 'eof', 'signal']);

/**
 * A live run's code at its end: the worst it was stopped with (a finding announced after a timer began the
 * stop still counts), and 2 when an input gave no record, but only for a guard (`failOn` other than `never`)
 * whose run went as far as it was meant to. Unlike `analyze`, a `watch` with no guard exits 0 over an unusable
 * input, one stopped at a violation keeps its 1, and one the user quit is no gate (README, "watch").
 */
export function liveExitCode(worst: ExitCode, end: { ended: RunEnd | undefined; unusableInput: boolean; failOn: FailOn }): ExitCode {
  const judged = end.ended !== undefined && JUDGED_ENDS.has(end.ended);
  return end.unusableInput && end.failOn !== 'never' && judged ? worstCode(worst, 2) : worst;
}
