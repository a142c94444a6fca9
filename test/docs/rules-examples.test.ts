import { describe, expect, it } from 'vitest';
import { RULE_IDS, ruleOf, type RuleId } from '../../src/detect/rules/index.js';
import { analyzeLines, findingsOf } from '../helpers/logs.js';
import { examplesOf, readRulesDoc, sectionsOf, type RuleExamples } from './rule-examples.js';

// Every example in docs/rules.md is a log a reader may paste into resumescope:
// the one under "Fires on." must produce a finding of its section's rule, the
// near miss must be judged by that rule and produce none.

const doc = readRulesDoc();
const sections = sectionsOf(doc);
const examples = new Map<RuleId, RuleExamples>(RULE_IDS.map((id) => [id, examplesOf(id, sections.get(id) ?? '')]));

/**
 * Examples that are right by ../shared/spec/rules.md but that the detector
 * judges otherwise: kept as they are and run with it.fails until the detector
 * is settled, each with the reason. Empty while docs and detectors agree.
 */
const DETECTOR_DISAGREES: Partial<Record<RuleId, { fires?: string; nearMiss?: string }>> = {};

async function analyzeExample(lines: string[]) {
  const report = await analyzeLines(lines);
  // A line the analyzer rejects would make the example prove nothing about the rule.
  expect(report.summary.rejected_lines, 'the example has lines the log format rejects').toBe(0);
  return report;
}

describe('docs/rules.md', () => {
  it('has one section per rule id and no other', () => {
    expect([...sections.keys()].sort()).toEqual([...RULE_IDS].sort());
  });

  it('gives each rule in its summary table the severity of src/model/rules.ts', () => {
    const rows = [...doc.matchAll(/^\| \[`([^`]+)`\]\(#[^)]+\) \| (\w+) \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(RULE_IDS.map((id) => [id, ruleOf(id).severity]));
  });
});

describe('docs/rules.md examples', () => {
  for (const id of RULE_IDS) {
    const { fires, nearMiss } = examples.get(id)!;
    const known = DETECTOR_DISAGREES[id];

    (known?.fires ? it.fails : it)(`${id} fires on its example`, async () => {
      const report = await analyzeExample(fires);
      const notKnowable = report.not_knowable.filter((n) => n.rule === id).map((n) => n.reason);
      expect(findingsOf(report, id).length, `no ${id} finding; not knowable: ${notKnowable.join(' | ') || 'none'}`).toBeGreaterThan(0);
    });

    (known?.nearMiss ? it.fails : it)(`${id} does not fire on its near miss`, async () => {
      const report = await analyzeExample(nearMiss);
      expect(findingsOf(report, id).map((f) => f.message)).toEqual([]);
      // A near miss the rule cannot judge passes for the wrong reason.
      expect(report.not_knowable.filter((n) => n.rule === id).map((n) => n.reason)).toEqual([]);
    });
  }
});
