import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonChunks, renderJson, renderJsonChunks, toJsonReport } from '../../src/render/json.js';
import { terminalSafeJson } from '../../src/model/printable.js';
import { FINDINGS, makeReport } from './fixture.js';

describe('renderJson', () => {
  it('has exactly the contract shape and key order', () => {
    const out = JSON.parse(renderJson(makeReport()));
    expect(Object.keys(out)).toEqual(['version', 'findings', 'not_knowable', 'summary']);
    expect(out.version).toBe(1);
    for (const f of out.findings) {
      expect(Object.keys(f)).toEqual(['rule', 'severity', 'session', 'at', 'message', 'evidence']);
      for (const e of f.evidence) expect(Object.keys(e)).toEqual(['file', 'line']);
    }
    for (const n of out.not_knowable) expect(Object.keys(n)).toEqual(['rule', 'session', 'reason']);
    expect(Object.keys(out.summary)).toEqual(['records', 'rejected_lines', 'ignored_lines', 'sessions', 'by_rule', 'nodes', 'protocol_versions']);
    expect(out.summary.protocol_versions).toEqual({ unknown: 5 });
    expect(out.summary.nodes).toEqual({ a: { records: 7 }, b: { records: 8, skew_ms: -12 } });
    expect(Object.keys(out.summary.nodes)).toEqual(['a', 'b']);
  });

  it('keeps every finding and sorts them by time, then rule', () => {
    const out = JSON.parse(renderJson(makeReport([...FINDINGS].reverse())));
    expect(out.findings.map((f: { at: string; rule: string }) => `${f.at.slice(11, 19)} ${f.rule}`)).toEqual([
      '10:00:04 cross-principal-replay',
      '10:00:04 engine-divergence',
      '10:00:04 silent-truncation',
      '10:00:06 event-id-without-session',
      '10:00:09 dual-writer',
      '10:01:04 404-storm',
    ]);
    expect(out.findings[3]).toEqual(FINDINGS[3]);
    expect(out.findings[3].session).toBeNull();
  });

  it('is byte-identical whatever order the detectors produced', () => {
    const shuffled = makeReport([FINDINGS[4]!, FINDINGS[0]!, FINDINGS[5]!, FINDINGS[2]!, FINDINGS[1]!, FINDINGS[3]!]);
    shuffled.not_knowable.reverse();
    expect(renderJson(shuffled)).toBe(renderJson(makeReport()));
  });

  it('leaves out fields beyond the contract that a detector may have attached', () => {
    const extra = { ...FINDINGS[0]!, family: 'replay-integrity', evidence: [{ file: 'a.ndjson', line: 3, offset: 120 }] };
    const out = JSON.parse(renderJson(makeReport([extra])));
    expect(out.findings[0]).not.toHaveProperty('family');
    expect(out.findings[0].evidence).toEqual([{ file: 'a.ndjson', line: 3 }]);
  });

  // Written piece by piece so that a large report is never one string; the bytes are one JSON.stringify's.
  const stringified = (r: ReturnType<typeof makeReport>) => `${JSON.stringify(toJsonReport(r), null, 2)}\n`;

  it('writes the bytes of one JSON.stringify of the report, in pieces, with no findings too', () => {
    for (const r of [makeReport(), makeReport([])]) {
      expect(renderJson(r)).toBe(stringified(r));
    }
    const none = makeReport([]);
    none.not_knowable = [];
    expect(renderJson(none)).toBe(stringified(none));
    expect(renderJson(none)).toContain('"findings": [],\n  "not_knowable": [],');
  });

  it('cuts a large report into pieces of about 64 KB that join to the same bytes, hostile text included', () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({
      ...FINDINGS[i % FINDINGS.length]!,
      session: `S${i}`,
      message: `line\nbreak "quoted" \\ \u001b[31m tab\t ${'é'.repeat(i % 7)} ${i}`,
    }));
    const r = makeReport(many);
    const chunks = Array.from(renderJsonChunks(r));
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(70_000);
    expect(chunks.join('')).toBe(stringified(r));
  });

  it('cuts tens of thousands of not-knowables into pieces too, never one string of them all', () => {
    const r = makeReport();
    r.not_knowable = Array.from({ length: 4000 }, (_, i) => ({
      rule: 'silent-truncation',
      session: i % 3 === 0 ? null : `S${i}`,
      reason: `proxy log only: "quoted" \\ \u001b[31m line\nbreak ${i}`,
    }));
    const chunks = Array.from(renderJsonChunks(r));
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(70_000);
    expect(chunks.join('')).toBe(stringified(r));
  });
});

describe('jsonChunks', () => {
  const whole = (v: unknown) => terminalSafeJson(JSON.stringify(v, null, 2));

  it('writes any JSON value as JSON.stringify(value, null, 2) does, terminal-safe, in pieces', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect([...jsonChunks(v)].join('')).toBe(whole(v));
      }),
      { numRuns: 500 },
    );
  });

  it('leaves out what JSON.stringify leaves out, and escapes what could steer a terminal, in keys too', () => {
    const v = { a: undefined, f: () => 1, list: [undefined, 1, () => 2], '\u202e key': 'x\u009by', when: new Date(0), nested: { empty: {}, none: [] } };
    expect([...jsonChunks(v)].join('')).toBe(whole(v));
    expect([...jsonChunks(v)].join('')).not.toMatch(/[\u202e\u009b]/);
  });

  it('never holds a large value as one piece: thousands of items come in pieces of about 64K characters', () => {
    const flips = Array.from({ length: 5000 }, (_, i) => ({ at: i, why: 'x'.repeat(100) }));
    const pieces = [...jsonChunks({ version: 1, flips })];
    expect(pieces.length).toBeGreaterThan(5);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(70_000);
    expect(pieces.join('')).toBe(whole({ version: 1, flips }));
  });
});
