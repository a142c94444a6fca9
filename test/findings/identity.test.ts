import { describe, expect, it } from 'vitest';
import { findingFingerprint, findingIdentity } from '../../src/findings/identity.js';
import type { Finding } from '../../src/model/finding.js';
import { FINDINGS } from '../render/fixture.js';

const f = FINDINGS[0]!;
const shifted = (x: Finding, by: number): Finding => ({ ...x, evidence: x.evidence.map((e) => ({ file: e.file.replace('.ndjson', '-2.ndjson'), line: e.line + by })) });

describe('finding identity (baseline, SARIF fingerprint, live, what-if)', () => {
  it('is 16 hex digits as a fingerprint, and the same on a re-run of the same logs', () => {
    expect(findingFingerprint(f)).toMatch(/^[0-9a-f]{16}$/);
    expect(findingFingerprint(structuredClone(f))).toBe(findingFingerprint(f));
  });

  it('does not change when the evidence lines shift in a re-export', () => {
    expect(findingIdentity(shifted(f, 40))).toBe(findingIdentity(f));
  });

  it('does not change when the message is reworded as the log grows', () => {
    const reworded: Finding = { ...f, message: `${f.message}; it was retired only at 2026-11-09T10:09:00.000Z` };
    expect(findingIdentity(reworded)).toBe(findingIdentity(f));
  });

  it('tells apart findings that differ in rule, session or time', () => {
    const variants: Finding[] = [{ ...f, rule: 'phantom-event-id' }, { ...f, session: 'S9' }, { ...f, session: null }, { ...f, at: '2026-11-09T10:00:04.001Z' }];
    expect(new Set([f, ...variants].map(findingIdentity)).size).toBe(variants.length + 1);
  });

  it('identifies an end-of-log finding by its first evidence line, not by its time, which moves as the log grows', () => {
    const orphan: Finding = { ...f, rule: 'orphaned-request', evidence: [{ file: 'a.ndjson', line: 4 }, { file: 'a.ndjson', line: 9 }] };
    expect(findingIdentity({ ...orphan, at: '2026-11-09T11:00:00.000Z' })).toBe(findingIdentity(orphan));
    expect(findingIdentity({ ...orphan, evidence: [{ file: 'a.ndjson', line: 5 }] })).not.toBe(findingIdentity(orphan));
    expect(findingIdentity({ ...orphan, evidence: [{ file: '-', line: 4 }] })).toBe(findingIdentity(orphan));
  });
});
