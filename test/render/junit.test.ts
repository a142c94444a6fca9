import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/finding.js';
import { RULE_IDS } from '../../src/detect/rules/index.js';
import { renderJunit } from '../../src/render/junit.js';
import { FINDINGS, lineText, makeReport } from './fixture.js';

/** A small well-formedness check: balanced tags, no raw `<` or stray `&` in text or attributes. */
function assertWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml[^>]*\?>\s*/, '');
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w.-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (const m of body.matchAll(tag)) {
    const text = body.slice(last, m.index);
    expect(text).not.toMatch(/</);
    last = m.index + m[0].length;
    for (const chunk of [text, m[3] ?? '']) expect(chunk).not.toMatch(/&(?!(amp|lt|gt|quot|apos|#\d+);)/);
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else if (!m[4]) stack.push(m[2]!);
  }
  expect(body.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}

const unescape = (s: string): string =>
  s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('renderJunit', () => {
  const xml = renderJunit(makeReport(), { lineText });

  it('is one well-formed file with a test suite per rule of the catalogue, in catalogue order', () => {
    assertWellFormed(xml);
    const suites = [...xml.matchAll(/<testsuite name="([\w-]+)" package="resumescope\.([\w-]+)"/g)];
    // Then the inputs' suite, as the fixture has rejected lines (test/render/rejected-lines.test.ts).
    expect(suites.map((m) => m[1])).toEqual([...RULE_IDS, 'inputs']);
    expect(suites.find((m) => m[1] === 'dual-writer')?.[2]).toBe('writers-and-requests');
  });

  it('has one test case per finding, and every count matches the elements it counts', () => {
    const twice = renderJunit(makeReport([...FINDINGS, { ...FINDINGS[4]!, session: 'S7' }]));
    for (const out of [xml, twice, renderJunit(makeReport([]))]) {
      for (const m of out.matchAll(/<testsuite [^>]*tests="(\d+)" failures="(\d+)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
        expect((m[3]!.match(/<testcase /g) ?? []).length).toBe(Number(m[1]));
        expect((m[3]!.match(/<failure /g) ?? []).length).toBe(Number(m[2]));
      }
    }
    expect(xml.match(/<failure /g)).toHaveLength(FINDINGS.length);
    expect(twice.match(/<failure /g)).toHaveLength(FINDINGS.length + 1);
    const dualWriter = /<testsuite name="dual-writer"[^>]*>([\s\S]*?)<\/testsuite>/.exec(twice)?.[1] ?? '';
    expect(dualWriter.match(/<testcase [^>]*>\s*<failure /g)).toHaveLength(2);
    // A rule with no finding still shows as a check that ran and passed.
    expect(renderJunit(makeReport([])).match(/no finding fails the gate" time="0"\/>/g)).toHaveLength(RULE_IDS.length);
  });

  it('puts session, time and evidence lines in the failure body', () => {
    const body = /<testcase [^>]*name="silent-truncation in [^>]*>\s*<failure [^>]*>([\s\S]*?)<\/failure>/.exec(xml)?.[1] ?? '';
    const text = unescape(body);
    expect(text).toContain('session: S1');
    expect(text).toContain('at: 2026-11-09T10:00:04.000Z');
    expect(text).toContain('server-a.ndjson:5  {"ts":"2026-11-09T10:00:03.000Z","kind":"buffer.trimmed"');
    expect(text).toContain('server-b.ndjson:2  ');
  });

  it('escapes < & " in messages and evidence so the text survives, a line break in it shown escaped', () => {
    const nasty: Finding = {
      ...FINDINGS[0]!,
      message: 'replayed < sent & reason "resumption_unavailable" ignored\nsecond line',
      evidence: [{ file: 'odd.ndjson', line: 1 }],
    };
    const out = renderJunit(makeReport([nasty]), { lineText: () => '{"note":"<script>&amp;</script>"}' });
    assertWellFormed(out);
    const message = /<failure message="([^"]*)"/.exec(out)?.[1] ?? '';
    expect(message).toContain('&lt; sent &amp; reason &quot;resumption_unavailable&quot;');
    expect(unescape(message)).toBe('replayed < sent & reason "resumption_unavailable" ignored\\u000asecond line');
    expect(out).toContain('odd.ndjson:1  {"note":"&lt;script&gt;&amp;amp;&lt;/script&gt;"}');
  });

  it('lists not-knowable sessions in the output of their rule', () => {
    const orphaned = /<testsuite name="orphaned-request"[^>]*>([\s\S]*?)<\/testsuite>/.exec(xml)?.[1] ?? '';
    expect(orphaned).toContain('<system-out>');
    expect(orphaned).toContain('not knowable for session S4');
    expect(orphaned).toContain('not knowable for session S5');
  });
});

describe('junit and the gate', () => {
  it('fails only the findings at or above --fail-on, and lists the others in system-out, so the file agrees with the exit code', () => {
    const report = makeReport(FINDINGS);
    const xml = renderJunit(report, { lineText, failOn: 'error' });
    const failing = report.findings.filter((f) => f.severity === 'error' || f.severity === 'critical');
    const failures = [...xml.matchAll(/failures="(\d+)"/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(failures).toBe(failing.length);
    expect((xml.match(/<failure /g) ?? []).length).toBe(failing.length);
    const below = report.findings.filter((f) => f.severity === 'warning' || f.severity === 'info');
    expect(below.length).toBeGreaterThan(0);
    expect((xml.match(/below the --fail-on error gate/g) ?? []).length).toBe(below.length);
  });
});

describe('junit against the strict (Ant) JUnit schema', () => {
  const xmllint = spawnSync('xmllint', ['--version']).status === 0;
  // .ci/run installs xmllint, so in CI this check always runs.
  it.runIf(xmllint || process.env.CI)('validates, with findings above and below the gate and none at all', () => {
    const dir = mkdtempSync(join(tmpdir(), 'resumescope-junit-'));
    try {
      const schema = join(import.meta.dirname, '../fixtures/junit-ant.xsd');
      const outputs = [renderJunit(makeReport(), { lineText }), renderJunit(makeReport(), { lineText, failOn: 'error' }), renderJunit(makeReport([]))];
      outputs.forEach((xml, i) => {
        const file = join(dir, `${i}.xml`);
        writeFileSync(file, xml);
        const r = spawnSync('xmllint', ['--noout', '--schema', schema, file], { encoding: 'utf8', timeout: 20_000 });
        expect(r.stderr).toContain('validates');
        expect(r.status).toBe(0);
      });
      // The schema itself can say no: a suite without its timestamp fails.
      const bad = join(dir, 'bad.xml');
      writeFileSync(bad, outputs[0]!.replace(/ timestamp="[^"]*"/, ''));
      expect(spawnSync('xmllint', ['--noout', '--schema', schema, bad], { timeout: 20_000 }).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
