import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/render/junit.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import { renderSarif } from '../../src/render/sarif.js';
import { lineText, makeReport } from './fixture.js';
import { cli } from '../cli/run-cli.js';
import { sarifSchemaValidator } from './sarif-schema.js';

// A CI user's report: SARIF and JUnit never counted rejected lines (log-format.md: a line that is
// not a valid record is never dropped silently, and is counted in every report). Markdown and
// text said it; a pipeline keeping only the SARIF or JUnit file never heard of them.

/** The fixture's report with this many rejected lines. */
function withRejected(n: number) {
  const r = makeReport();
  r.summary.rejected_lines = n;
  return r;
}

const sarifRun = (n: number) => JSON.parse(renderSarif(withRejected(n), { toolVersion: '1.2.3', lineText, workingDirectory: '/work/repo' })).runs[0];

describe('SARIF and rejected lines', () => {
  it('a warning notification says how many and how to list them, and the run\'s properties count them', () => {
    const run = sarifRun(2);
    const warnings = run.invocations[0].toolExecutionNotifications.filter((n: { level: string }) => n.level === 'warning');
    expect(warnings).toEqual([
      { level: 'warning', message: { text: '2 rejected lines could not be read as records; see which and why with `resumescope query rejected` on the same logs (or --db FILE)' } },
    ]);
    expect(run.properties).toEqual({ rejectedLines: 2 });
    expect(run.invocations[0].executionSuccessful).toBe(true);
    expect(sarifRun(1).invocations[0].toolExecutionNotifications[0].message.text).toMatch(/^1 rejected line could not/);
  });

  it('adds nothing when no line was rejected', () => {
    const run = sarifRun(0);
    expect(run.invocations[0].toolExecutionNotifications.filter((n: { level: string }) => n.level !== 'note')).toEqual([]);
    expect(run).not.toHaveProperty('properties');
  });

  it('is valid SARIF 2.1.0 (the vendored JSON schema)', () => {
    const validate = sarifSchemaValidator();
    const log = JSON.parse(renderSarif(withRejected(3), { toolVersion: '1.2.3', lineText, workingDirectory: '/work/repo', unusable: [{ name: 'x.ndjson', reason: 'cannot read (ENOENT: no such file or folder)', file: true }] }));
    expect(validate(log) ? [] : validate.errors).toEqual([]);
  });
});

describe('JUnit and rejected lines', () => {
  const inputsSuite = (xml: string) => /<testsuite name="inputs"[^>]*>[\s\S]*?<\/testsuite>/.exec(xml)?.[0];

  it('the suite `inputs` carries the count in its properties and says it in <system-err>, a passing case when every input was usable', () => {
    const suite = inputsSuite(renderJunit(withRejected(2), { lineText }))!;
    expect(suite).toMatch(/tests="1" failures="0" errors="0"/);
    expect(suite).toContain('<property name="rejected-lines" value="2"/>');
    expect(suite).toContain('<property name="unusable-inputs" value="0"/>');
    expect(suite).toContain('<testcase classname="resumescope.inputs" name="inputs: every input was usable" time="0"/>');
    expect(suite).toContain(
      '<system-err>2 rejected lines could not be read as records; see which and why with `resumescope query rejected` on the same logs (or --db FILE)</system-err>',
    );
  });

  it('beside unusable inputs, their error cases, and the count still', () => {
    const suite = inputsSuite(renderJunit(withRejected(5), { lineText, unusable: [{ name: 'x.ndjson', reason: 'cannot read', file: true }] }))!;
    expect(suite).toMatch(/tests="1" failures="0" errors="1"/);
    expect(suite).toContain('<property name="rejected-lines" value="5"/>');
    expect(suite).not.toContain('every input was usable');
    expect(suite).toContain('<system-err>5 rejected lines');
  });

  it('adds nothing when no line was rejected and every input was usable', () => {
    expect(renderJunit(withRejected(0), { lineText })).not.toContain('resumescope.inputs');
  });

  const xmllint = spawnSync('xmllint', ['--version']).status === 0;
  it.runIf(xmllint || process.env.CI)('validates against the strict (Ant) JUnit schema', () => {
    const dir = mkdtempSync(join(tmpdir(), 'resumescope-junit-rejected-'));
    try {
      const file = join(dir, 'r.xml');
      writeFileSync(file, renderJunit(withRejected(2), { lineText }));
      const r = spawnSync('xmllint', ['--noout', '--schema', join(import.meta.dirname, '../fixtures/junit-ant.xsd'), file], { encoding: 'utf8', timeout: 20_000 });
      expect(r.stderr).toContain('validates');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Markdown and text say it in the same words', () => {
  // Markdown once had a sentence of its own that left out --db: a reviewer reading the PR comment of
  // a run on stdin could not re-run `query rejected` on the same input.
  it('names how to list them, the same logs or --db FILE', () => {
    const note = '2 rejected lines could not be read as records; see which and why with `resumescope query rejected` on the same logs (or --db FILE).';
    expect(renderMarkdown(withRejected(2), { lineText })).toContain(`⚠️ ${note}`);
    expect(renderText(withRejected(2), { lineText })).toContain(note);
    expect(renderMarkdown(withRejected(0), { lineText })).not.toContain('rejected line');
  });
});

describe('analyze of a log with rejected lines', () => {
  it('SARIF and JUnit count them as the JSON summary does', async () => {
    const log = 'test/fixtures/bad-lines.ndjson';
    const json = JSON.parse((await cli('analyze', log, '-f', 'json')).out);
    const n = json.summary.rejected_lines as number;
    expect(n).toBeGreaterThan(0);
    const sarif = JSON.parse((await cli('analyze', log, '-f', 'sarif')).out).runs[0];
    expect(sarif.properties.rejectedLines).toBe(n);
    expect((await cli('analyze', log, '-f', 'junit')).out).toContain(`<property name="rejected-lines" value="${n}"/>`);
  });
});
