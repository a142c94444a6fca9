import type { RuleContext } from './rule.js';
import type { RawFinding } from './types.js';

/**
 * A rule's findings as it makes them, handed over to the run a batch at a time (RuleContext.handOver):
 * a bad server's log gives some rules a finding per reconnect, and holding them until the rule returned
 * made the run's peak grow with them (engine-divergence alone held 350 MB at 3M fuzzed lines).
 * Without a hand-over (a caller outside a run) it only collects. `rest()` is what the rule returns.
 */
export class FindingBatches {
  private batch: RawFinding[] = [];

  constructor(private readonly handOver?: RuleContext['handOver']) {}

  push(finding: RawFinding): void {
    if (this.batch.push(finding) >= FINDINGS_PER_BATCH && this.handOver) this.handOver(this.batch.splice(0));
  }

  rest(): RawFinding[] {
    return this.batch.splice(0);
  }
}

const FINDINGS_PER_BATCH = 1000;

/** A finding made of each row, handed over in batches (FindingBatches): for a rule with one finding per query row. */
export function findingPerRow<R>(rows: Iterable<R>, finding: (row: R) => RawFinding, handOver?: RuleContext['handOver']): RawFinding[] {
  const batches = new FindingBatches(handOver);
  for (const row of rows) batches.push(finding(row));
  return batches.rest();
}
