import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { detectOnTwoThreads } from '../../src/detect/parallel.js';
import { FORMATS } from '../../src/render/index.js';
import { cli } from './run-cli.js';

// The findings cache of a --db file (detect/report-cache.ts): a command on a database judged before reads
// the report kept there instead of running every rule again (1M lines: explain -n 1 took 30-60 s).

// Counts the judgements: a command that read the cache ran no rule.
vi.mock('../../src/detect/parallel.js', async (original) => {
  const actual = await original<typeof import('../../src/detect/parallel.js')>();
  return { ...actual, detectOnTwoThreads: vi.fn(actual.detectOnTwoThreads) };
});
const judged = () => vi.mocked(detectOnTwoThreads).mock.calls.length;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-cache-'));
  vi.mocked(detectOnTwoThreads).mockClear();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function sql<T = unknown>(db: string, statement: string): T[] {
  const conn = new Database(db);
  try {
    return statement.trimStart().startsWith('SELECT') ? (conn.prepare(statement).all() as T[]) : (conn.exec(statement), []);
  } finally {
    conn.close();
  }
}

/** Marks every kept finding's message: a report that shows the mark was read from the cache. */
const markKept = (db: string) => sql(db, "UPDATE report_cache_findings SET message = 'KEPT ' || message");

/** Every sample, as the samples' README says to read it. */
const SAMPLES: string[][] = [
  ['samples/clean.ndjson'],
  ['samples/http-edge.ndjson'],
  ['samples/node-restart.ndjson'],
  ['samples/replay-integrity.ndjson'],
  ['samples/session-continuity.ndjson'],
  ['samples/stream-vs-session.ndjson'],
  ['samples/writers.ndjson'],
  ['samples/multi-node'],
  ['-r', 'samples/k8s'],
  ['--json-array', '--csv', 'samples/exports'],
  ['samples/proxy'],
  ['samples/sdk'],
];

/** What a user asks of a judged database: every format, the text report's variants, explain. */
const ASKED: string[][] = [
  ...FORMATS.map((f) => ['analyze', '--fail-on', 'never', '-f', f]),
  ['analyze', '--explain', '--raw', '--no-not-knowable'],
  ['analyze', '--fail-on', 'never', '-f', 'markdown', '--raw'],
  ['explain'],
  ['explain', '-n', '2'],
];

describe('a report read from the findings cache', () => {
  it.each(SAMPLES)('is byte for byte the report the rules make, in every format: %s', async (...input) => {
    const db = join(dir, 't.db');
    expect((await cli('ingest', ...input, '--db', db)).code).toBe(0);
    for (const asked of ASKED) {
      sql(db, 'DELETE FROM report_cache');
      const before = judged();
      const made = await cli(...asked, '--db', db);
      expect(judged(), `${asked.join(' ')} judged`).toBe(before + 1);
      const read = await cli(...asked, '--db', db);
      expect(judged(), `${asked.join(' ')} read the cache`).toBe(before + 1);
      expect(read, asked.join(' ')).toEqual(made);
    }
  });

  it('is what explain, analyze and their filters read on a database judged before, and no rule runs', async () => {
    const db = join(dir, 't.db');
    const first = await cli('analyze', 'samples/http-edge.ndjson', '--db', db, '--fail-on', 'never');
    expect(first.out).not.toContain('KEPT');
    markKept(db);
    expect(judged()).toBe(1);
    expect((await cli('explain', '--db', db, '-n', '1')).out).toMatch(/^#1 [^]*\nWhat happened\n {2}KEPT /);
    const session = await cli('analyze', '--db', db, '--fail-on', 'never', '--session', 'd00d-78', '-f', 'json');
    const report = JSON.parse(session.out) as { findings: { session: string; message: string }[]; summary: { by_rule: Record<string, number> } };
    expect(report.findings.map((f) => f.session)).toEqual(['d00d-78']);
    expect(report.findings[0]!.message).toMatch(/^KEPT /);
    expect(Object.values(report.summary.by_rule)).toEqual([1]);
    const rule = await cli('analyze', '--db', db, '--fail-on', 'never', '--rule', '404-storm', '-f', 'json');
    expect((JSON.parse(rule.out) as { findings: { rule: string }[] }).findings.map((f) => f.rule)).toEqual(['404-storm']);
    expect(judged()).toBe(1);
    // Near miss: the same log judged without --db keeps nothing and reads nothing.
    expect((await cli('explain', 'samples/http-edge.ndjson', '-n', '1')).out).not.toContain('KEPT');
    expect(judged()).toBe(2);
  });

  it('is not read after an ingest adds to the database, and the new judgement replaces it', async () => {
    const db = join(dir, 't.db');
    await cli('analyze', 'samples/http-edge.ndjson', '--db', db, '--fail-on', 'never');
    markKept(db);
    // The same bytes again add nothing: the cache still holds.
    await cli('ingest', 'samples/http-edge.ndjson', '--db', db);
    expect((await cli('explain', '--db', db, '-n', '1')).out).toContain('KEPT');
    expect(judged()).toBe(1);
    await cli('ingest', 'samples/writers.ndjson', '--db', db);
    const after = await cli('analyze', '--db', db, '--fail-on', 'never', '-f', 'json');
    expect(judged()).toBe(2);
    expect(after.out).not.toContain('KEPT');
    const sessions = new Set((JSON.parse(after.out) as { findings: { session: string }[] }).findings.map((f) => f.session));
    expect(sessions).toEqual(new Set(['d00d-77', 'd00d-78', 'S-1001']));
    // The judgement of both files is the one kept now.
    expect((await cli('analyze', '--db', db, '--fail-on', 'never', '-f', 'json')).out).toBe(after.out);
    expect(judged()).toBe(2);
  });

  it('is not read under other thresholds or other disabled rules, and holds the last judgement only', async () => {
    const db = join(dir, 't.db');
    const plain = await cli('analyze', 'samples/http-edge.ndjson', '--db', db, '--fail-on', 'never', '-f', 'json');
    markKept(db);
    const storms = await cli('analyze', '--db', db, '--fail-on', 'never', '-f', 'json', '--storm-count', '20');
    expect(judged()).toBe(2);
    expect(storms.out).not.toContain('KEPT');
    expect((JSON.parse(storms.out) as { findings: { rule: string }[] }).findings.map((f) => f.rule)).not.toContain('404-storm');
    // The same thresholds, spelt as the default is: the judgement just kept.
    markKept(db);
    expect((await cli('analyze', '--db', db, '--fail-on', 'never', '-f', 'json', '--storm-count', '20')).out).toContain('KEPT');
    expect(judged()).toBe(2);
    const config = join(dir, 'resumescope.json');
    writeFileSync(config, JSON.stringify({ rules: { disable: ['duplicate-tool-call'] } }));
    const disabled = await cli('analyze', '--db', db, '--fail-on', 'never', '-f', 'json', '--config', config);
    expect(judged()).toBe(3);
    expect(disabled.out).not.toContain('KEPT');
    expect(disabled.out).not.toContain('duplicate-tool-call');
    // Back to the defaults: judged again (the cache holds one report), the same report as the first time.
    expect((await cli('analyze', '--db', db, '--fail-on', 'never', '-f', 'json')).out).toBe(plain.out);
    expect(judged()).toBe(4);
  });

  it('is whatif\'s world as logged on a --db judged before: only the changed world runs its rules, and the answer is the same', async () => {
    const db = join(dir, 'w.db');
    const fresh = await cli('whatif', 'samples/replay-integrity.ndjson', '--retention', '120s', '--format', 'json');
    expect(judged()).toBe(2);
    await cli('analyze', 'samples/replay-integrity.ndjson', '--db', db, '--fail-on', 'never');
    expect(judged()).toBe(3);
    const kept = await cli('whatif', '--db', db, '--retention', '120s', '--format', 'json');
    expect(kept.code, kept.err).toBe(0);
    expect(judged()).toBe(4);
    expect(kept.out).toBe(fresh.out);
    // Near miss: a whatif of a database no one judged runs both worlds, and keeps the one as logged for analyze.
    const other = join(dir, 'w2.db');
    await cli('ingest', 'samples/replay-integrity.ndjson', '--db', other);
    expect((await cli('whatif', '--db', other, '--retention', '120s', '--format', 'json')).out).toBe(fresh.out);
    expect(judged()).toBe(6);
    await cli('analyze', '--db', other, '--fail-on', 'never');
    expect(judged()).toBe(6);
  });
});
