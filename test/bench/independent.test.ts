import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeSources } from '../../src/api.js';
import { fileSource } from '../../src/read/sources.js';

// bench/independent/generate.mjs was written from the spec alone, by helpers who did not read the analyzer:
// its logs are the issue-10 check's. Each injected fault family it writes is one the analyzer must find,
// and the bench times such logs as they are given (--files), never deleting them.

const GEN = fileURLToPath(new URL('../../bench/independent/generate.mjs', import.meta.url));
const RUN = fileURLToPath(new URL('../../bench/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'resumescope-independent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function generated(name: string, args: string[]): string {
  const r = spawnSync(process.execPath, [GEN, '--shape', 'prod', ...args], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
  expect(r.status).toBe(0);
  const file = join(dir, `${name}.ndjson`);
  writeFileSync(file, r.stdout);
  return file;
}

describe('logs written by the independent generator', () => {
  // the broken-stream retry (a call with neither req nor conn: 0 found before the 28th session), and two
  // families whose rules that session changed, on the generator's own terms
  it.each([
    ['dup-call-args', 'duplicate-tool-call'],
    ['phantom', 'phantom-event-id'],
    ['write-superseded', 'write-to-superseded-stream'],
  ])('finds the injected %s faults (%s)', async (fault, rule) => {
    const file = generated(fault, ['--lines', '4000', '--seed', '7', '--faults', fault, '--fault-rate', '0.3', '--off', 'proxyonly']);
    const report = await analyzeSources([fileSource(file)]);
    expect(report.summary.rejected_lines).toBe(0);
    expect(report.summary.by_rule[rule] ?? 0).toBeGreaterThan(0);
  }, 60_000);

  it('is timed by the bench as given, and kept', () => {
    const small = generated('small', ['--lines', '400', '--seed', '3']);
    const r = spawnSync(process.execPath, [RUN, '--files', small, '--no-lnav', '--no-floor', '--json'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { rows: { shape: string; lines: number; x_bare: number }[] };
    expect(out.rows).toEqual([expect.objectContaining({ shape: 'files', lines: 400, x_bare: expect.any(Number) })]);
    expect(existsSync(small)).toBe(true);
    const missing = spawnSync(process.execPath, [RUN, '--files', join(dir, 'nope.ndjson')], { encoding: 'utf8', timeout: 60_000 });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--files: no such file');
  }, 60_000);
});
