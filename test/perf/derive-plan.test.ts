import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { loadWorkspace } from '../../src/api.js';
import { expandPaths } from '../../src/read/sources.js';
import type { Db } from '../../src/store/db.js';
import { foldReadSql } from '../../src/store/session-chunks.js';

// Derive reads the log a chunk of sessions at a time. A chunk read that walks a whole kind (every
// upgrade of the log) instead of probing the chunk's sessions costs (chunks × that kind): it took
// 24 of derive's 32 s at 1M lines. The first derive of a log runs before the planner has statistics,
// so the plan is judged on a database as ingest leaves it.

const plan = (db: Db, sql: string) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from({ length: 6 }, (_, i) => `s-${i}`)) as { detail: string }[]).map((r) => r.detail);

describe("derive's chunk read", () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'derive-plan-'));
    const file = join(dir, 'production.ndjson');
    await generate(file, 4000, { shape: 'production', seed: 3 });
    db = (await loadWorkspace(expandPaths([file]))).db;
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'").pluck().get()).toBe(0);
  }, 30_000);
  afterAll(() => {
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('probes its sessions and the sessions its upgrades mint, never a kind', () => {
    const steps = plan(db, foldReadSql(3));
    expect(steps.filter((s) => /^SEARCH r /.test(s))).toEqual([
      'SEARCH r USING INDEX records_session (session=?)',
      'SEARCH r USING INDEX records_new_session (new_session=?)',
    ]);
  });

  it('(the guard sees the walk: with kind left indexable, the planner takes records_kind)', () => {
    const steps = plan(db, foldReadSql(3).replace("+r.kind = 'upgrade'", "r.kind = 'upgrade'"));
    expect(steps).toContain('SEARCH r USING INDEX records_kind (kind=?)');
  });
});
