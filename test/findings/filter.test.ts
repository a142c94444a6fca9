import { describe, expect, it } from 'vitest';
import { filterReport } from '../../src/findings/filter.js';
import { makeReport } from '../render/fixture.js';

describe('filterReport', () => {
  it('keeps only the named rules and recounts by_rule for what is kept', () => {
    const out = filterReport(makeReport(), { rules: ['silent-truncation', 'dual-writer', 'orphaned-request'] });
    expect(out.findings.map((f) => f.rule).sort()).toEqual(['dual-writer', 'silent-truncation']);
    expect(out.summary.by_rule).toEqual({ 'silent-truncation': 1, 'dual-writer': 1 });
    expect(out.not_knowable.map((n) => n.rule)).toEqual(['orphaned-request', 'orphaned-request']);
  });

  it('keeps only the named sessions, in findings and in not knowable', () => {
    const out = filterReport(makeReport(), { sessions: ['S1', 'S4'] });
    expect(new Set(out.findings.map((f) => f.session))).toEqual(new Set(['S1']));
    expect(out.findings).toHaveLength(3);
    expect(out.summary.by_rule).toEqual({ 'silent-truncation': 1, 'cross-principal-replay': 1, 'engine-divergence': 1 });
    expect(out.not_knowable.map((n) => `${n.rule}/${n.session}`).sort()).toEqual(['orphaned-request/S4', 'pending-not-reemitted/S4']);
  });

  it('combines rules and sessions, and a finding without a session never matches a session list', () => {
    const out = filterReport(makeReport(), { rules: ['event-id-without-session', 'dual-writer'], sessions: ['S2'] });
    expect(out.findings.map((f) => `${f.rule}/${f.session}`)).toEqual(['dual-writer/S2']);
  });

  it('without criteria keeps everything, and leaves the input counts of the logs alone', () => {
    const report = makeReport();
    const out = filterReport(report, {});
    expect(out.findings).toEqual(report.findings);
    expect(out.not_knowable).toEqual(report.not_knowable);
    const narrowed = filterReport(report, { rules: ['404-storm'] });
    expect(narrowed.summary.records).toBe(16);
    expect(narrowed.summary.rejected_lines).toBe(2);
    expect(narrowed.summary.nodes).toEqual(report.summary.nodes);
  });

  it('does not modify the report it is given', () => {
    const report = makeReport();
    const before = JSON.stringify(report);
    filterReport(report, { rules: ['dual-writer'] });
    expect(JSON.stringify(report)).toBe(before);
  });
});
