import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';

// Issue 13, "Bad input never costs the rest of the run": an out-of-range time
// is a rejected line, and an unusable path beside good ones is reported after
// the good ones are analysed (log-format.md: exit 2 after the others).

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-badin-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const T = '2026-11-09T10:00:00.000Z';
const created = (session: string, ts: unknown = T) => JSON.stringify({ ts, kind: 'session.created', session, incarnation: 'i1' });

describe('a time beyond the representable range', () => {
  for (const ts of [1e308, 9e15, 253402300800000, '1' + '0'.repeat(300)]) {
    it(`ts ${String(ts).slice(0, 20)} is a rejected line with its reason, and every command still reports`, async () => {
      const log = join(dir, 'huge-ts.ndjson');
      writeFileSync(log, `${created('S1')}\n${created('S2', ts)}\n`);
      const q = await cli('query', 'SELECT file, line, reason FROM rejected_lines', log, '-f', 'json');
      expect(q.code).toBe(0);
      expect(JSON.parse(q.out)).toEqual([{ file: log, line: 2, reason: expect.stringMatching(/unparsable time .*out of range \(after year 9999\)/) }]);
      for (const args of [['timeline', 'S1', log], ['analyze', log], ['query', 'SELECT ts_ms, session FROM records', log], ['explain', log]]) {
        const r = await cli(...args);
        expect(r.err, args.join(' ')).not.toContain('Invalid time value');
        expect(r.code, args.join(' ')).toBeLessThan(2);
      }
    });
  }

  it('a date that is not one (month 13) is rejected, not read', async () => {
    const log = join(dir, 'bad-date.ndjson');
    writeFileSync(log, `${created('S1')}\n${created('S2', '2026-13-01T00:00:00Z')}\n`);
    const r = await cli('analyze', log);
    expect(r.code).toBe(0);
    expect(r.err).toContain('1 of 2 lines rejected (first: line 2: session.created: unparsable time "2026-13-01T00:00:00Z"');
  });
});

describe('an unusable path on the command line beside valid files', () => {
  const writers = 'samples/writers.ndjson';

  it('a missing path: the others are analysed and reported, then exit 2 naming the path and why', async () => {
    const missing = join(dir, 'nope.ndjson');
    const r = await cli('analyze', missing, writers, '--fail-on', 'never');
    expect(r.code).toBe(2);
    expect(r.out).toContain('dual-writer');
    expect(r.err).toContain(`${missing}: unusable: cannot read (ENOENT: no such file or folder)`);
  });

  it('a symlink loop: the same, and the message says it is a loop', async () => {
    const loop = join(dir, 'loop.ndjson');
    symlinkSync(loop, loop);
    const r = await cli('analyze', writers, loop, '-f', 'json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).summary.by_rule['dual-writer']).toBeGreaterThan(0);
    expect(r.err).toContain(`${loop}: unusable: cannot read (ELOOP: a loop of symbolic links)`);
  });

  it('timeline and query report the good file too, and exit 2', async () => {
    const missing = join(dir, 'gone.ndjson');
    const t = await cli('timeline', 'S-1001', writers, missing);
    expect(t.code).toBe(2);
    expect(t.out).not.toBe('');
    expect(t.err).toContain(`${missing}: unusable`);
    const q = await cli('query', 'SELECT count(*) AS n FROM records', missing, writers, '-f', 'json');
    expect(q.code).toBe(2);
    expect(JSON.parse(q.out)[0].n).toBeGreaterThan(0);
  });

  it('a missing path alone still exits 2 with its name', async () => {
    const r = await cli('analyze', join(dir, 'only.ndjson'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('only.ndjson: unusable: cannot read (ENOENT');
  });
});

describe('the reports of a run with an unusable input say the gate failed, as the exit code does', () => {
  // A CI user's report: the run exited 2 but its markdown said ✅, its JUnit passed and its SARIF
  // said executionSuccessful: a pipeline that reads the artifact passed a broken export.
  const good = 'samples/writers.ndjson';
  const bad = () => {
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, 'hello\nnot json\n');
    return file;
  };

  it('markdown: a missing file alone leads with ❌, the file and why; no ✅', async () => {
    const missing = join(dir, 'nosuch.ndjson');
    const r = await cli('analyze', missing, '-f', 'markdown');
    expect(r.code).toBe(2);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^❌ \*\*resumescope\*\*: 1 input was unusable: the gate failed \(exit 2\)/);
    expect(lines[2]).toBe(`- <code>${missing}</code>: cannot read (ENOENT: no such file or folder)`);
    expect(r.out).not.toContain('✅');
  });

  it('SARIF of good, missing and bad files: the good file\'s results, executionSuccessful false, an error per unusable file', async () => {
    const missing = join(dir, 'nosuch.ndjson');
    const badFile = bad();
    const r = await cli('analyze', good, missing, badFile, '-f', 'sarif');
    expect(r.code).toBe(2);
    const run = JSON.parse(r.out).runs[0];
    expect(run.results.map((x: { ruleId: string }) => x.ruleId)).toContain('dual-writer');
    expect(run.invocations[0].executionSuccessful).toBe(false);
    const errors = run.invocations[0].toolExecutionNotifications.filter((n: { level: string }) => n.level === 'error');
    expect(errors.map((n: { message: { text: string } }) => n.message.text)).toEqual([
      `${missing}: unusable: cannot read (ENOENT: no such file or folder); the gate failed (exit 2), whatever the findings`,
      expect.stringMatching(/bad\.ndjson: unusable: no record lines \(line 1: invalid JSON/),
    ]);
    expect(errors[1].locations[0].physicalLocation.artifactLocation.uri).toMatch(/^file:\/\/\/.*bad\.ndjson$/);
  });

  it('JUnit: an <error> test case per unusable file; text: said on stdout as well as stderr', async () => {
    const missing = join(dir, 'nosuch.ndjson');
    const junit = await cli('analyze', good, missing, '-f', 'junit', '--fail-on', 'never');
    expect(junit.code).toBe(2);
    expect(junit.out).toContain(`<testcase classname="resumescope.inputs" name="input ${missing}" time="0">`);
    expect(junit.out).toContain('<error message="cannot read (ENOENT: no such file or folder)" type="unusable-input">');
    const text = await cli('analyze', missing, good);
    expect(text.code).toBe(2);
    expect(text.out).toContain(`UNUSABLE INPUTS: 1 input was unusable: the gate failed (exit 2)`);
    expect(text.out).toContain(`  ${missing}: cannot read (ENOENT: no such file or folder)`);
  });

  it('a run whose inputs are all usable: SARIF executionSuccessful true with no error, no UNUSABLE section, markdown ✅', async () => {
    const sarif = await cli('analyze', 'samples/clean.ndjson', '-f', 'sarif');
    expect(sarif.code).toBe(0);
    const run = JSON.parse(sarif.out).runs[0];
    expect(run.invocations[0].executionSuccessful).toBe(true);
    expect(run.invocations[0].toolExecutionNotifications.filter((n: { level: string }) => n.level !== 'note')).toEqual([]);
    expect((await cli('analyze', 'samples/clean.ndjson')).out).not.toContain('UNUSABLE');
    expect((await cli('analyze', 'samples/clean.ndjson', '-f', 'markdown')).out).toMatch(/^✅ /);
    expect((await cli('analyze', 'samples/clean.ndjson', '-f', 'junit')).out).not.toContain('resumescope.inputs');
  });
});
