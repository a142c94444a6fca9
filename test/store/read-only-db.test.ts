import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// An incident reviewer is handed a --db file read-only (mode 0444, a read-only mount, another user's
// folder): every command on it said "cannot open database (attempt to write a readonly database)".
// What only reads a database now opens it read-only, immutable where SQLite cannot put its -shm beside it.
// Root writes anywhere: as root the commands run as `nobody` (runuser), as anyone else as themselves.

const BIN = join(import.meta.dirname, '../../bin/resumescope.js');
const root = process.getuid?.() === 0;
// As nobody, the checkout itself must be readable (a clone in root's home is not).
const runuser = root && spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, BIN, '--version'], { timeout: 30_000 }).status === 0;
const able = process.platform === 'linux' && (!root || runuser);

function run(...args: string[]): { code: number | null; out: string; err: string } {
  const cmd = root ? ['runuser', '-u', 'nobody', '--', process.execPath, BIN, ...args] : [process.execPath, BIN, ...args];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8', timeout: 60_000, env: { ...process.env, CI: 'true' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let dir: string;
let shut: string;
beforeAll(() => {
  if (!able) return;
  dir = mkdtempSync(join(tmpdir(), 'resumescope-readonly-'));
  chmodSync(dir, 0o755);
  const made = join(dir, 'made.db');
  const r = spawnSync(process.execPath, [BIN, 'ingest', 'samples/writers.ndjson', '--db', made], { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  // A database judged once, its kept findings marked (KEPT): a report that shows the mark read them.
  const judged = join(dir, 'judged.db');
  const a = spawnSync(process.execPath, [BIN, 'analyze', 'samples/writers.ndjson', '--db', judged, '--fail-on', 'never'], { encoding: 'utf8', timeout: 60_000 });
  expect(a.status, a.stderr).toBe(0);
  const marked = new Database(judged);
  marked.exec("UPDATE report_cache_findings SET message = 'KEPT ' || message");
  marked.close();
  // The same as a resumescope before the findings cache wrote it (schema v7).
  const v7 = join(dir, 'v7.db');
  copyFileSync(made, v7);
  const old = new Database(v7);
  old.exec("DROP TABLE report_cache; DROP TABLE report_cache_findings; DROP TABLE report_cache_not_knowable; UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  old.close();
  // A folder no one but its owner may write, holding closed databases (their WAL checkpointed).
  shut = join(dir, 'shut');
  mkdirSync(shut);
  for (const [from, to] of [[made, 'x.db'], [judged, 'judged.db'], [v7, 'v7.db']] as const) {
    copyFileSync(from, join(shut, to));
    chmodSync(join(shut, to), 0o444);
  }
  chmodSync(shut, 0o555);
});
afterAll(() => {
  if (!able) return;
  chmodSync(shut, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(able)('a database no one may write to', () => {
  it('query, timeline, explain and analyze --db read it', () => {
    const db = join(shut, 'x.db');
    const q = run('query', '--db', db, 'SELECT count(*) AS n FROM records', '-f', 'json');
    expect(q.err).toBe('');
    expect(JSON.parse(q.out)).toEqual([{ n: expect.any(Number) }]);
    expect((JSON.parse(q.out) as { n: number }[])[0]!.n).toBeGreaterThan(10);
    expect(run('timeline', 'S-1001', '--db', db).out).toMatch(/^session S-1001/);
    expect(run('explain', '--db', db, '-n', '1').out).toMatch(/^#1 {2}\S+ \(\w+\)/);
    const a = run('analyze', '--db', db, '-f', 'json', '--fail-on', 'never');
    expect(a.code, a.err).toBe(0);
    expect((JSON.parse(a.out) as { findings: unknown[] }).findings.length).toBeGreaterThan(0);
    expect(existsSync(join(shut, 'x.db-shm'))).toBe(false);
  });

  it('explain and analyze read the findings kept in it, and judge it again under other thresholds, keeping nothing', () => {
    const db = join(shut, 'judged.db');
    expect(run('explain', '--db', db, '-n', '1').out).toContain('\nWhat happened\n  KEPT ');
    const other = run('analyze', '--db', db, '-f', 'json', '--fail-on', 'never', '--fence-grace', '1s');
    expect(other.code, other.err).toBe(0);
    expect(other.out).not.toContain('KEPT');
    expect((JSON.parse(other.out) as { findings: unknown[] }).findings.length).toBeGreaterThan(0);
    // The kept report is still the one kept.
    expect(run('analyze', '--db', db, '-f', 'json', '--fail-on', 'never').out).toContain('KEPT');
  });

  it('a database of schema v7 (no findings cache) is read as it is', () => {
    const db = join(shut, 'v7.db');
    const r = run('explain', '--db', db, '-n', '1');
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^#1 {2}\S+ \(\w+\)/);
    expect(run('analyze', '--db', db, '-f', 'json', '--fail-on', 'never').code).toBe(0);
  });

  it('an ingest into it says it cannot write, and what still can', () => {
    const r = run('ingest', 'samples/clean.ndjson', '--db', join(shut, 'x.db'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('cannot write to the database');
    expect(r.err).toContain('what only reads it (query, timeline, explain, whatif, analyze --db with no logs) still can');
  });

  it('near miss: writes still in a -wal it cannot read are refused, not silently skipped', () => {
    const held = join(dir, 'held');
    mkdirSync(held);
    copyFileSync(join(shut, 'x.db'), join(held, 'x.db'));
    writeFileSync(join(held, 'x.db-wal'), Buffer.alloc(4096, 1));
    chmodSync(held, 0o555);
    try {
      const r = run('query', '--db', join(held, 'x.db'), 'SELECT count(*) FROM records');
      expect(r.code).toBe(2);
      expect(r.err).toContain('its last writes are in');
    } finally {
      chmodSync(held, 0o755);
    }
  });
});
