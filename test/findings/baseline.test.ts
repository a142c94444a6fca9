import { describe, expect, it } from 'vitest';
import { applyBaseline, parseBaseline, writeBaseline } from '../../src/findings/baseline.js';
import { findingFingerprint } from '../../src/findings/identity.js';
import { FINDINGS, makeReport } from '../render/fixture.js';

describe('baseline round trip', () => {
  it('write then apply suppresses every finding of the baseline run', () => {
    const report = makeReport();
    const { report: after, suppressed } = applyBaseline(report, writeBaseline(report));
    expect(suppressed).toBe(FINDINGS.length);
    expect(after.findings).toEqual([]);
    expect(after.summary.by_rule).toEqual({});
    expect(after.not_knowable).toEqual(report.not_knowable);
  });

  it('suppresses exactly the known findings and keeps the new ones, also after a trip through JSON and shifted lines', () => {
    const known = FINDINGS.slice(0, 3);
    const baseline = parseBaseline(JSON.parse(JSON.stringify(writeBaseline(makeReport(known)))));
    const rerun = FINDINGS.map((f) => ({ ...f, evidence: f.evidence.map((e) => ({ ...e, line: e.line + 7 })) }));
    const { report, suppressed } = applyBaseline(makeReport(rerun), baseline);
    expect(suppressed).toBe(3);
    expect(report.findings.map((f) => f.rule)).toEqual(FINDINGS.slice(3).map((f) => f.rule));
    expect(report.summary.by_rule).toEqual({ 'event-id-without-session': 1, 'dual-writer': 1, '404-storm': 1 });
  });

  it('writes version 3 with one entry per finding, sorted by time then rule', () => {
    const file = writeBaseline(makeReport([...FINDINGS].reverse()));
    expect(file.version).toBe(3);
    expect(file.keys).toHaveLength(FINDINGS.length);
    const order = file.keys.map((k) => `${k.at} ${k.rule}`);
    expect(order).toEqual([...order].sort());
    expect(file.keys[0]).toEqual({
      key: findingFingerprint(FINDINGS[1]!),
      rule: 'cross-principal-replay',
      session: 'S1',
      at: '2026-11-09T10:00:04.000Z',
      message: FINDINGS[1]!.message,
    });
    expect(writeBaseline(makeReport(FINDINGS))).toEqual(file);
  });

  it('rejects a file that is not a baseline', () => {
    expect(() => parseBaseline({ version: 4, keys: [] })).toThrow(/"version": 3/);
    expect(() => parseBaseline({ version: 1, keys: [{ key: 'nothex', rule: 'dual-writer' }] })).toThrow(/keys\[0\]\.key/);
    expect(() => parseBaseline({ version: 1, keys: [{ key: '0123456789abcdef', rule: 'no-such-rule' }] })).toThrow(/keys\[0\]\.rule/);
  });

  it('still suppresses with a version 1 file, whose keys included the message: they are recomputed from rule, session and time', () => {
    const report = makeReport();
    const v1 = { version: 1, keys: writeBaseline(report).keys.map((k) => ({ ...k, key: 'ffffffffffffffff' })) };
    const { suppressed } = applyBaseline(makeReport(FINDINGS.map((f) => ({ ...f, message: `${f.message} (reworded)` }))), parseBaseline(v1));
    expect(suppressed).toBe(FINDINGS.length);
  });

  it('still suppresses with a version 2 file, whose orphaned requests were keyed on the line of their first evidence', () => {
    const orphan = { ...FINDINGS[0]!, rule: 'orphaned-request', message: 'server request r1 on g1 was stranded: g1 was closed at 2026-11-09T10:00:00.200Z while it was pending; it is still unanswered when the log ends' };
    const report = makeReport([...FINDINGS, orphan]);
    const v2 = { version: 2, keys: writeBaseline(report).keys.map((k) => (k.rule === 'orphaned-request' ? { ...k, key: '0123456789abcdef' } : k)) };
    const timedOut = { ...orphan, at: '2026-11-09T10:01:00.000Z', message: orphan.message.replace('it is still unanswered when the log ends', 'it timed out at 2026-11-09T10:01:00.000Z unanswered') };
    const { report: after, suppressed } = applyBaseline(makeReport([...FINDINGS, timedOut]), parseBaseline(v2));
    expect(suppressed).toBe(FINDINGS.length + 1);
    expect(after.findings).toEqual([]);
  });

  it('near miss: a version 3 file is taken as written, its keys not recomputed from its other fields', () => {
    const file = writeBaseline(makeReport());
    const wrongKeys = { ...file, keys: file.keys.map((k) => ({ ...k, key: '0123456789abcdef' })) };
    expect(applyBaseline(makeReport(), parseBaseline(JSON.parse(JSON.stringify(wrongKeys)))).suppressed).toBe(0);
  });
});

