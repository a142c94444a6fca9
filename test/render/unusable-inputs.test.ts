import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UnusableInput } from '../../src/model/unusable-input.js';
import { FORMATS, render, type RenderOptions } from '../../src/render/index.js';
import { lineText, makeReport } from './fixture.js';
import { sarifSchemaValidator } from './sarif-schema.js';

// A CI user's report: `analyze nosuch.ndjson -f markdown` exits 2 but printed
// `✅ … no findings`; JUnit had only passing cases; SARIF said executionSuccessful
// true. A pipeline that reads the artifact, not the exit code, passed a broken
// export. Every report of a run with an unusable input now says the gate failed.

const UNUSABLE: UnusableInput[] = [
  { name: 'nosuch.ndjson', reason: 'cannot read (ENOENT: no such file or folder)', file: true },
  { name: 'bad.ndjson', reason: 'no record lines (line 1: invalid JSON: Unexpected token \'h\', "hello" is not valid JSON)', file: true },
  { name: '<stdin>', reason: 'no record lines (none of its 3 lines is a resumption record)', file: false },
];

/** A clean run's report: no finding, no rejected line. */
function clean() {
  const r = makeReport([]);
  r.summary.rejected_lines = 0;
  r.not_knowable = [];
  return r;
}

const opts = (unusable?: UnusableInput[]): RenderOptions => ({ lineText, toolVersion: '1.2.3', cwd: '/work/repo', ...(unusable && { unusable }) });

describe('a report of a run with an unusable input', () => {
  it('markdown leads with a ❌ line saying the gate failed (exit 2), then each input and why; no ✅ anywhere', () => {
    const md = render('markdown', clean(), opts(UNUSABLE));
    const lines = md.split('\n');
    expect(lines[0]).toBe('❌ **resumescope**: 3 inputs were unusable: the gate failed (exit 2), whatever the findings; this report covers the other inputs only:');
    expect(lines.slice(1, 5)).toEqual([
      '',
      '- <code>nosuch.ndjson</code>: cannot read (ENOENT: no such file or folder)',
      '- <code>bad.ndjson</code>: no record lines (line 1: invalid JSON: Unexpected token \'h\', "hello" is not valid JSON)',
      '- <code>&lt;stdin&gt;</code>: no record lines (none of its 3 lines is a resumption record)',
    ]);
    expect(md).not.toContain('✅');
    expect(md).toContain('**resumescope**: no findings in 16 records');
    // Findings that fail the gate on their own keep their ❌ too.
    expect(render('markdown', makeReport(), opts(UNUSABLE))).toMatch(/\n❌ \*\*resumescope\*\*: 6 findings/);
  });

  it('markdown escapes an input name and a reason: they come from the command line and the log', () => {
    const md = render('markdown', clean(), opts([{ name: 'a`b<i>.ndjson', reason: 'no record lines (line 1: ![x](https://evil.example/p.png))', file: true }]));
    expect(md).toContain('- <code>a`b&lt;i&gt;.ndjson</code>: no record lines (line 1: !\\[x\\](https:<wbr>//evil.example/p.png))');
  });

  it('text says it on stdout too, under the summary line', () => {
    const lines = render('text', clean(), opts(UNUSABLE)).split('\n');
    expect(lines.slice(1, 6)).toEqual([
      '',
      'UNUSABLE INPUTS: 3 inputs were unusable: the gate failed (exit 2), whatever the findings; this report covers the other inputs only',
      '  nosuch.ndjson: cannot read (ENOENT: no such file or folder)',
      '  bad.ndjson: no record lines (line 1: invalid JSON: Unexpected token \'h\', "hello" is not valid JSON)',
      '  <stdin>: no record lines (none of its 3 lines is a resumption record)',
    ]);
  });

  it('JUnit has a test case per unusable input, each with an <error> whose message is why', () => {
    const xml = render('junit', clean(), opts(UNUSABLE));
    const suite = /<testsuite name="inputs" package="resumescope\.inputs" id="(\d+)"[^>]*tests="3" failures="0" errors="3"[^>]*>([\s\S]*?)<\/testsuite>/.exec(xml);
    expect(suite).not.toBeNull();
    const cases = [...suite![2]!.matchAll(/<testcase classname="resumescope\.inputs" name="([^"]*)" time="0">\s*<error message="([^"]*)" type="unusable-input">([^<]*)<\/error>\s*<\/testcase>/g)];
    expect(cases.map((c) => [c[1], c[2]])).toEqual([
      ['input nosuch.ndjson', 'cannot read (ENOENT: no such file or folder)'],
      ['input bad.ndjson', 'no record lines (line 1: invalid JSON: Unexpected token \'h\', &quot;hello&quot; is not valid JSON)'],
      ['input &lt;stdin&gt;', 'no record lines (none of its 3 lines is a resumption record)'],
    ]);
    expect(cases[0]![3]).toContain('nosuch.ndjson: unusable: cannot read (ENOENT: no such file or folder)');
    expect(cases[0]![3]).toContain('the gate failed (exit 2)');
  });

  it('SARIF: executionSuccessful false, and an error notification per input, located at its file when it has one', () => {
    const log = JSON.parse(render('sarif', clean(), opts(UNUSABLE)));
    const invocation = log.runs[0].invocations[0];
    expect(invocation.executionSuccessful).toBe(false);
    const errors = invocation.toolExecutionNotifications.filter((n: { level: string }) => n.level === 'error');
    expect(errors).toHaveLength(3);
    expect(errors[0]).toEqual({
      level: 'error',
      message: { text: 'nosuch.ndjson: unusable: cannot read (ENOENT: no such file or folder); the gate failed (exit 2), whatever the findings' },
      locations: [{ physicalLocation: { artifactLocation: { uri: 'nosuch.ndjson', uriBaseId: '%SRCROOT%' } } }],
    });
    expect(errors[2].message.text).toMatch(/^<stdin>: unusable: no record lines/);
    expect(errors[2]).not.toHaveProperty('locations');
  });

  it('HTML: the gate says FAIL (analyze exits 2) and lists each input and why', () => {
    const html = render('html', clean(), opts(UNUSABLE));
    expect(html).toMatch(/<p class="gate fail"><strong>FAIL<\/strong> 3 inputs were unusable: the gate failed \(exit 2\)/);
    expect(html).toContain('<li><code>nosuch.ndjson</code>: cannot read (ENOENT: no such file or folder)</li>');
    expect(html).toContain('<li><code>&lt;stdin&gt;</code>: no record lines');
    expect(html).not.toContain('<strong>PASS</strong>');
  });

  it('JSON is unchanged: its shape is a public interface, and the exit code and stderr say it', () => {
    expect(render('json', clean(), opts(UNUSABLE))).toBe(render('json', clean(), opts()));
  });
});

describe('a report of a run whose inputs were all usable', () => {
  it('is the same with an empty list as with none, in every format', () => {
    for (const format of FORMATS) expect(render(format, makeReport(), opts([])), format).toBe(render(format, makeReport(), opts()));
  });

  it('SARIF still says executionSuccessful true, with no notification at all on a clean run', () => {
    const log = JSON.parse(render('sarif', clean(), opts([])));
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(true);
    expect(log.runs[0].invocations[0].toolExecutionNotifications).toEqual([]);
  });

  it('markdown keeps its ✅ and text, JUnit and HTML say nothing of unusable inputs', () => {
    expect(render('markdown', clean(), opts([])).split('\n')[0]).toMatch(/^✅ \*\*resumescope\*\*: no findings/);
    expect(render('text', clean(), opts([]))).not.toContain('UNUSABLE');
    expect(render('junit', clean(), opts([]))).not.toContain('name="inputs"');
    expect(render('html', clean(), opts([]))).toContain('<strong>PASS</strong>');
  });
});

describe('SARIF written a piece at a time', () => {
  it('is the same text as the whole log made at once, an unusable file inside or outside the working directory', async () => {
    const { renderSarifChunks, toSarif } = await import('../../src/render/sarif.js');
    for (const name of ['/work/repo/a.ndjson', '/elsewhere/b.ndjson']) {
      const o = { toolVersion: '1.2.3', lineText, workingDirectory: '/work/repo', unusable: [{ name, reason: 'cannot read', file: true }] };
      const whole = `${JSON.stringify(toSarif(makeReport(), o), null, 2)}\n`;
      expect([...renderSarifChunks(makeReport(), o)].join(''), name).toBe(whole);
      expect(whole.includes('"workingDirectory"'), name).toBe(name.startsWith('/elsewhere'));
    }
  });
});

describe('the reports stay valid', () => {
  it('SARIF against the SARIF 2.1.0 JSON schema', () => {
    const validate = sarifSchemaValidator();
    for (const report of [clean(), makeReport()]) {
      const log = JSON.parse(render('sarif', report, opts(UNUSABLE)));
      expect(validate(log) ? [] : validate.errors).toEqual([]);
    }
  });

  const xmllint = spawnSync('xmllint', ['--version']).status === 0;
  it.runIf(xmllint || process.env.CI)('JUnit against the strict (Ant) JUnit schema', () => {
    const dir = mkdtempSync(join(tmpdir(), 'resumescope-junit-unusable-'));
    try {
      const schema = join(import.meta.dirname, '../fixtures/junit-ant.xsd');
      for (const [i, report] of [clean(), makeReport()].entries()) {
        const file = join(dir, `${i}.xml`);
        writeFileSync(file, render('junit', report, opts(UNUSABLE)));
        const r = spawnSync('xmllint', ['--noout', '--schema', schema, file], { encoding: 'utf8', timeout: 20_000 });
        expect(r.stderr).toContain('validates');
        expect(r.status).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
