export const SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

/** `--fail-on` accepts a severity or `never`. */
export type FailOn = Severity | 'never';

export function meetsThreshold(s: Severity, failOn: FailOn): boolean {
  return failOn !== 'never' && severityRank(s) >= severityRank(failOn);
}
