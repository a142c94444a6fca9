import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../live/cli.js';

// A CI user's report: `analyze clean.ndjson -f sarif >/dev/full` printed an uncaught
// `Error: ENOSPC` stack and exited 1, the "findings" code, while `-o /dev/full` exited 2
// with one line. A report that could not be written is no gate passed or failed: exit 2.

beforeAll(() => assertBuilt());

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-stdout-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built CLI with its standard output on `target` (a file the test opens for writing). */
function runTo(target: string, args: string[], input?: string) {
  const fd = openSync(target, 'w');
  try {
    return spawnSync(process.execPath, [BIN, ...args], {
      cwd: ROOT, stdio: [input === undefined ? 'ignore' : 'pipe', fd, 'pipe'], encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' },
      ...(input !== undefined && { input }),
    });
  } finally {
    closeSync(fd);
  }
}

const COMMANDS: string[][] = [
  ['analyze', 'samples/clean.ndjson', '-f', 'sarif'],
  ['analyze', 'samples/writers.ndjson'],
  ['analyze', 'samples/writers.ndjson', '-f', 'json'],
  ['explain', 'samples/writers.ndjson', '-n', '1'],
  ['timeline', 'S-1001', 'samples/writers.ndjson'],
  ['query', 'SELECT count(*) AS n FROM records', 'samples/clean.ndjson'],
  ['whatif', 'samples/replay-integrity.ndjson', '--retention', '120s'],
  ['rules'],
  ['--help'],
];

describe.runIf(existsSync('/dev/full'))('standard output that cannot be written (a full disk: /dev/full)', () => {
  for (const args of COMMANDS) {
    it(`${args.join(' ')}: one line saying so on stderr, no stack, exit 2`, () => {
      const r = runTo('/dev/full', args);
      expect(r.stderr).toMatch(/^resumescope: cannot write the report to standard output: ENOSPC: no space left on device, write\n$/m);
      expect(r.stderr).not.toMatch(/\n\s+at |node:internal|Uncaught|Node\.js v/);
      expect(r.stderr.match(/cannot write the report/g)).toHaveLength(1);
      expect(r.status).toBe(2);
    });
  }

  it('ingest, which prints a line per input, the same', () => {
    const r = runTo('/dev/full', ['ingest', 'samples/clean.ndjson', '--db', join(dir, 'full.db')]);
    expect(r.stderr).toContain('resumescope: cannot write the report to standard output: ENOSPC');
    expect(r.status).toBe(2);
  });

  it('watch -f ndjson, which writes findings as they come: said once (not also by the finding writer), exit 2', () => {
    const r = runTo('/dev/full', ['watch', '-', '-f', 'ndjson'], readFileSync(join(ROOT, 'samples/writers.ndjson'), 'utf8'));
    expect(r.stderr.match(/resumescope: .*ENOSPC/g)).toEqual(['resumescope: cannot write the report to standard output: ENOSPC']);
    expect(r.status).toBe(2);
  });
});

describe('standard output that can be written: nothing said, the exit code is the run\'s', () => {
  it('a clean log exits 0, a log with findings 1, and stderr holds no write error', () => {
    const out = join(dir, 'out.txt');
    const clean = runTo(out, ['analyze', 'samples/clean.ndjson', '-f', 'sarif']);
    expect(clean.status).toBe(0);
    expect(clean.stderr).not.toContain('cannot write');
    const found = runTo(out, ['analyze', 'samples/writers.ndjson']);
    expect(found.status).toBe(1);
    expect(found.stderr).not.toContain('cannot write');
    writeFileSync(out, '');
  });
});
