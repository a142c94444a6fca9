import { ruleOf } from '../detect/rules/index.js';
import type { FindingList, Report } from '../model/finding.js';
import { meetsThreshold, type FailOn } from '../model/severity.js';

/**
 * The CI gate: 1 when any finding is at or above `failOn`, else 0.
 * Exit 2 (unusable input or command line) is decided by the CLI, not here.
 */
export function exitCodeFor(report: Report<FindingList>, failOn: FailOn): 0 | 1 {
  const findings = report.findings;
  // A table's findings carry their rule's severity: its counts per rule answer without reading one.
  const failing = Array.isArray(findings)
    ? findings.some((f) => meetsThreshold(f.severity, failOn))
    : [...findings.countByRule().keys()].some((rule) => meetsThreshold(ruleOf(rule).severity, failOn));
  return failing ? 1 : 0;
}
