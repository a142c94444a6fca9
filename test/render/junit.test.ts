import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/finding.js';
import { RULE_IDS } from '../../src/model/rules.js';
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

  it('is one well-formed resumescope suite with a test case per rule of the catalogue', () => {
    assertWellFormed(xml);
    expect(xml.match(/<testsuite /g)).toHaveLength(1);
    expect(xml).toMatch(/<testsuite name="resumescope" tests="24" /);
    const cases = [...xml.matchAll(/<testcase classname="resumescope\.([\w-]+)" name="([\w-]+)"/g)];
    expect(cases.map((m) => m[2])).toEqual([...RULE_IDS]);
    expect(cases.find((m) => m[2] === 'dual-writer')?.[1]).toBe('writers-and-requests');
  });

  it('has one failure per finding inside its rule, and failures counts the failing cases', () => {
    expect(xml.match(/<failure /g)).toHaveLength(FINDINGS.length);
    expect(xml).toMatch(/failures="6"/);
    const twice = renderJunit(makeReport([...FINDINGS, { ...FINDINGS[4]!, session: 'S7' }]));
    expect(twice.match(/<failure /g)).toHaveLength(FINDINGS.length + 1);
    expect(twice).toMatch(/failures="6"/);
    const dualWriter = /<testcase [^>]*name="dual-writer">([\s\S]*?)<\/testcase>/.exec(twice)?.[1] ?? '';
    expect(dualWriter.match(/<failure /g)).toHaveLength(2);
    expect(renderJunit(makeReport([]))).toMatch(/tests="24" failures="0"/);
  });

  it('puts session, time and evidence lines in the failure body', () => {
    const body = /<testcase [^>]*name="silent-truncation">\s*<failure [^>]*>([\s\S]*?)<\/failure>/.exec(xml)?.[1] ?? '';
    const text = unescape(body);
    expect(text).toContain('session: S1');
    expect(text).toContain('at: 2026-11-09T10:00:04.000Z');
    expect(text).toContain('server-a.ndjson:5  {"ts":"2026-11-09T10:00:03.000Z","kind":"buffer.trimmed"');
    expect(text).toContain('server-b.ndjson:2  ');
  });

  it('escapes < & " in messages and evidence so the text survives unchanged', () => {
    const nasty: Finding = {
      ...FINDINGS[0]!,
      message: 'replayed < sent & reason "resumption_unavailable" ignored\nsecond line',
      evidence: [{ file: 'odd.ndjson', line: 1 }],
    };
    const out = renderJunit(makeReport([nasty]), { lineText: () => '{"note":"<script>&amp;</script>"}' });
    assertWellFormed(out);
    const message = /<failure message="([^"]*)"/.exec(out)?.[1] ?? '';
    expect(message).toContain('&lt; sent &amp; reason &quot;resumption_unavailable&quot;');
    expect(unescape(message)).toBe(nasty.message);
    expect(out).toContain('odd.ndjson:1  {"note":"&lt;script&gt;&amp;amp;&lt;/script&gt;"}');
  });

  it('lists not-knowable sessions in the output of their rule', () => {
    const orphaned = /<testcase [^>]*name="orphaned-request">([\s\S]*?)<\/testcase>/.exec(xml)?.[1] ?? '';
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
    const failingRules = new Set(failing.map((f) => f.rule));
    expect(xml).toMatch(new RegExp(`failures="${failingRules.size}"`));
    expect((xml.match(/<failure /g) ?? []).length).toBe(failing.length);
    const below = report.findings.filter((f) => f.severity === 'warning' || f.severity === 'info');
    expect(below.length).toBeGreaterThan(0);
    expect((xml.match(/below the --fail-on error gate/g) ?? []).length).toBe(below.length);
  });
});
