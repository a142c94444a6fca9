import type { Report } from '../model/finding.js';
import { meetsThreshold, type FailOn } from '../model/severity.js';

/**
 * The CI gate: 1 when any finding is at or above `failOn`, else 0.
 * Exit 2 (unusable input or command line) is decided by the CLI, not here.
 */
export function exitCodeFor(report: Report, failOn: FailOn): 0 | 1 {
  return report.findings.some((f) => meetsThreshold(f.severity, failOn)) ? 1 : 0;
}
