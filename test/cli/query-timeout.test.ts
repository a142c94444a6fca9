import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

// Issue 13: --timeout was checked between rows only, so a query that computes
// before its first row (an aggregate over a cartesian product) never stopped.
// query now runs the statement in a child process and kills it at the limit.

const CARTESIAN = 'SELECT count(*) AS n FROM records a, records b, records c';
const KINDS = ['session.created', 'stream.opened', 'event.sent', 'stream.closed'];

let dir: string;
let log: string;
let savedTmp: string | undefined;

/** 2,000 records: the cartesian product of three is 8·10⁹ rows, minutes of work for SQLite. */
function writeLog(path: string): void {
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const ts = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i * 10)).toISOString();
    const session = `s-${Math.floor(i / 4)}`;
    const kind = KINDS[i % 4]!;
    const base = { ts, kind, session, node: 'node-a', principal: 'p1' };
    if (kind === 'session.created') lines.push(JSON.stringify({ ...base, incarnation: `i-${i}` }));
    else if (kind === 'event.sent') lines.push(JSON.stringify({ ...base, stream: 'g1', event_id: `e-${i}` }));
    else lines.push(JSON.stringify({ ...base, stream: 'g1', via: 'get', conn: `c-${i}` }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** Live (not zombie) children of this process: a killed query process must not linger. */
function liveChildren(): string[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'stat=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when no process matches.
  }
  return out.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('Z') && !l.includes('ps -o'));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rs-query-timeout-'));
  log = join(dir, 'log.ndjson');
  writeLog(log);
  // The scratch databases go here, so the test sees its own and no one else's.
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = join(dir, 'tmp');
  execFileSync('mkdir', ['-p', process.env.TMPDIR]);
});

afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(dir, { recursive: true, force: true });
});

describe('query --timeout', () => {
  it('stops a query that is slow before its first row, within the bound, with exit 2 naming the cause', async () => {
    const started = Date.now();
    const r = await cli('query', CARTESIAN, log, '--timeout', '1');
    const took = Date.now() - started;
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('query stopped after 1 s (--timeout), 0 rows so far');
    expect(r.err).toContain('raise the limit with --timeout DURATION (e.g. 60s)');
    // Ingest of 2,000 lines plus the 1 s limit; without the kill this runs for minutes.
    expect(took).toBeLessThan(12_000);
  });

  it('leaves no query process running and no scratch database behind', async () => {
    await cli('query', CARTESIAN, log, '--timeout', '0.5');
    let live = liveChildren();
    for (let i = 0; i < 20 && live.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      live = liveChildren();
    }
    expect(live).toEqual([]);
    expect(readdirSync(process.env.TMPDIR!)).toEqual([]);
  });

  it('takes a duration with a unit, as every time flag does; bare digits stay seconds; a bad one is a usage error', async () => {
    const r = await cli('query', CARTESIAN, log, '--timeout', '800ms');
    expect(r.code).toBe(2);
    expect(r.err).toContain('query stopped after 0.8 s (--timeout)');
    expect((await cli('query', 'SELECT 1 AS one', log, '--timeout', '5s')).code).toBe(0);
    expect((await cli('query', 'SELECT 1 AS one', log, '--timeout', '5')).code).toBe(0);
    for (const bad of ['0', '0s', 'soon', '-1s']) {
      const refused = await cli('query', 'SELECT 1 AS one', log, '--timeout', bad);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/--timeout: /);
    }
  });

  it('a normal query still returns its rows, in order, with the default limit', async () => {
    const r = await cli('query', 'SELECT kind, count(*) AS n FROM records GROUP BY kind ORDER BY kind', log, '-f', 'json');
    expect(r.code).toBe(0);
    const counts = new Map<string, number>();
    for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
      const kind = (JSON.parse(line) as { kind: string }).kind;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    expect(JSON.parse(r.out)).toEqual([...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([kind, n]) => ({ kind, n })));
  });

  it('keeps SQLite value types across the process boundary: integer, real, text, null, blob', async () => {
    const r = await cli('query', "SELECT 42 AS i, 1.5 AS r, 'é\"x' AS t, NULL AS z, x'00ff' AS b", log, '-f', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([{ i: 42, r: 1.5, t: 'é"x', z: null, b: "x'00ff'" }]);
    // A column name given twice keeps its last value, as better-sqlite3 gives it in-process.
    expect(JSON.parse((await cli('query', 'SELECT 1 AS a, 2 AS a', log, '-f', 'json')).out)).toEqual([{ a: 2 }]);
  });

  it('works on a --db file the same way', async () => {
    const db = join(dir, 'kept.db');
    expect((await cli('ingest', log, '--db', db)).code).toBe(0);
    const n = await cli('query', 'SELECT count(*) AS n FROM records', '--db', db, '-f', 'json');
    expect(JSON.parse(n.out)).toEqual([{ n: 2000 }]);
    const slow = await cli('query', CARTESIAN, '--db', db, '--timeout', '0.5');
    expect(slow.code).toBe(2);
    expect(slow.err).toContain('query stopped after 0.5 s (--timeout)');
  });
});

describe('query --max-rows with the child process', () => {
  it('stops at the cap, however many rows the query would return', async () => {
    const r = await cli('query', 'SELECT a.id FROM records a, records b', log, '--max-rows', '100');
    expect(r.code).toBe(2);
    expect(r.err).toContain('query stopped: it returns more than 100 rows (add a LIMIT, or raise the cap with --max-rows N)');
  });

  it('returns every row up to the cap, across many batches', async () => {
    const r = await cli('query', 'SELECT a.id AS a, b.id AS b FROM records a, records b ORDER BY a.id, b.id LIMIT 3001', log, '--max-rows', '3001', '-f', 'json');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as { a: number; b: number }[];
    expect(rows).toHaveLength(3001);
    const ids = rows.map((x) => x.b);
    expect(ids.slice(0, 2000)).toEqual([...ids.slice(0, 2000)].sort((x, y) => x - y));
    expect(new Set(rows.map((x) => `${x.a}:${x.b}`)).size).toBe(3001);
  });
});
