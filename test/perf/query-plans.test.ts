import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from '../../bench/generate.js';
import { loadWorkspace } from '../../src/api.js';
import { DEFAULT_DETECT_OPTIONS } from '../../src/model/thresholds.js';
import { expandPaths } from '../../src/read/sources.js';
import type { Db } from '../../src/store/db.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { QUERIES_DIR, QUERY_FOLDERS, queryParts } from '../../src/store/queries.js';
import { analyzeStages, dropStages, queryParams } from '../../src/detect/query-rows.js';
import { refreshStatistics } from '../../src/store/statistics.js';

// A guard against quadratic query plans: inside any CORRELATED subquery (run once
// per outer row) a plan step must be a selective lookup. It fails on
//  - SCAN of anything but a table-valued function (json_each over the outer row's
//    value is bounded by that row). A scan of a MATERIALIZED CTE is flagged too:
//    it is computed once, but scanned in full per outer row, which is quadratic
//    whenever the CTE grows with the log. SQLite's AUTOMATIC index on such a CTE
//    (what the fixed 404-storm gets) is a SEARCH, built once, and passes.
//  - MULTI-INDEX OR: the old 404-storm plan, an OR of kind lookups per row.
//  - SEARCH whose only constraints are low-selectivity columns (records by kind
//    alone: a kind holds a large share of the log).
// The database is built the way analyze builds it: real ingest of the samples and
// generated production-shaped lines, derive, then the planner statistics.

const LOW_SELECTIVITY = new Set(['kind']);

// Queries whose plan violates the guard today, each with why it is tolerated.
// A new violation anywhere else fails; a listed query that becomes clean fails too,
// so the list only shrinks; a listed query must show exactly its listed steps.
const KNOWN_SLOW = new Map<string, string[]>([
  // replay-on-attach's sightings are a staged, indexed TEMP table since the 8th session.
  // The summary's questions, moved from detect/summary.ts unchanged (the guard did not see SQL in TypeScript):
  // w is two constant rows (the Last-Event-ID, then the last replayed id), read once per upgrade.
  ['reports/skew-from-resumptions', ['SCAN w']],
  // session_versions' sessions, scanned per session with a version where the planner guesses few (measured in
  // summary.ts at 1M production lines: 0.8 s); not yet rewritten.
  ['reports/protocol-versions', ['SCAN s LEFT-JOIN']],
]);

interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

/** The plan steps inside correlated subqueries that make the query quadratic. */
function quadraticSteps(plan: PlanRow[]): string[] {
  const children = new Map<number, PlanRow[]>();
  for (const r of plan) children.set(r.parent, [...(children.get(r.parent) ?? []), r]);
  const bad: string[] = [];
  const innerScans = new Set([...children.values()].flatMap(innerLoopScans));
  const walk = (row: PlanRow, correlated: boolean): void => {
    // A named CTE of the statement's WITH cannot see the outer row: materialized, it runs
    // once even when the plan nests it under the correlated subquery that first reads it.
    // Not so a FROM-subquery, `(subquery-N)`, which may read the outer row and is re-run.
    const onceOnly = /^MATERIALIZE [^(]/.test(row.detail);
    const inside = onceOnly ? false : correlated || row.detail.startsWith('CORRELATED ');
    if ((inside && isQuadratic(row.detail)) || innerScans.has(row)) bad.push(row.detail);
    for (const c of children.get(row.id) ?? []) walk(c, inside);
  };
  for (const r of children.get(0) ?? []) walk(r, false);
  return bad;
}

/**
 * Steps of one SELECT are its join's loops, outermost first: a full SCAN after the first loop runs
 * once per row of the loops around it. (reports/rejected read every rejected line once per file.)
 */
function innerLoopScans(steps: PlanRow[]): PlanRow[] {
  const loops = steps.filter((r) => /^(SCAN|SEARCH) /.test(r.detail));
  return loops.slice(1).filter((r) => r.detail.startsWith('SCAN ') && isQuadratic(r.detail));
}

function isQuadratic(detail: string): boolean {
  if (detail.startsWith('MULTI-INDEX OR')) return true;
  // Reading a co-routine's output, `SCAN (subquery-N)`, is linear in what it yields; its
  // own steps are judged where the plan lists them.
  if (detail.startsWith('SCAN ')) return !/\bVIRTUAL TABLE\b/.test(detail) && !/^SCAN (CONSTANT ROW|\(subquery-\d+\))/.test(detail);
  const search = /^SEARCH \S+ USING (?:COVERING )?INDEX \S+ \(([^)]*)\)/.exec(detail);
  if (search) {
    const cols = search[1]!.split(' AND ').map((c) => /^\w+/.exec(c)?.[0] ?? '');
    return cols.every((c) => LOW_SELECTIVITY.has(c));
  }
  return false;
}

function params(sql: string): Record<string, unknown> {
  // engine-divergence passes the sessions it asks about as a JSON array of ids, and the positions as [session, id, ms];
  // the dashboard's session rows (reports/session-*.sql) ask of one session; silent-truncation asks of its replay
  // windows as [session, lane, first position, last position]
  return queryParams(sql, DEFAULT_DETECT_OPTIONS, {
    sessions: JSON.stringify(['s-1', 's-2']),
    asked: JSON.stringify([['s-1', '7', 1000]]),
    session: 's-1',
    windows: JSON.stringify([['s-1', 'g1', 1, 5]]),
  });
}

function planOf(db: Db, sql: string): PlanRow[] {
  return db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params(sql)) as PlanRow[];
}

/**
 * The steps of a query file's every statement: a staged query's TEMP tables are
 * planned (and built) one after another, as the run builds them, then its answer.
 */
function fileSteps(db: Db, sql: string): string[] {
  const parts = queryParts(sql);
  const steps: string[] = [];
  try {
    for (const stage of parts.stages) {
      steps.push(...quadraticSteps(planOf(db, stage)));
      db.prepare(stage).run(params(stage));
    }
    analyzeStages(db, parts.tables);
    steps.push(...quadraticSteps(planOf(db, parts.select)));
  } finally {
    dropStages(db, parts);
  }
  return steps;
}

const QUERY_NAMES = [
  ...QUERY_FOLDERS.flatMap((folder) => readdirSync(join(QUERIES_DIR, folder)).filter((f) => f.endsWith('.sql')).map((f) => `${folder}/${f}`)),
]
  .map((f) => f.slice(0, -4))
  .sort();

describe('query plans: no per-row scan inside a correlated subquery', () => {
  let dir: string;
  let db: Db;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-plans-'));
    const generated = join(dir, 'production.ndjson');
    await generate(generated, 4000, { shape: 'production', seed: 3 });
    const ws = await loadWorkspace(expandPaths([new URL('../../samples/', import.meta.url).pathname, generated]));
    db = ws.db;
    deriveTimeline(db);
    refreshStatistics(db);
    const analyzed = db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'").pluck().get();
    expect(analyzed, 'the planner sees statistics, as under analyze').toBe(1);
  }, 30_000);

  afterAll(() => {
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('flags the pre-fix 404-storm (CTE re-evaluated per row, MULTI-INDEX OR over records_kind)', () => {
    // `git show 33ad6ad:queries/404-storm.sql`, kept as a file so shallow clones run it too
    const old = readFileSync(new URL('fixtures/404-storm-pre-fix.sql', import.meta.url), 'utf8');
    const steps = quadraticSteps(planOf(db, old));
    expect(steps).toContain('MULTI-INDEX OR');
    expect(steps.some((s) => /USING INDEX records_kind \(kind=\?\)/.test(s))).toBe(true);
  });

  it('judges only what runs per outer row', () => {
    const plan = (...rows: [number, number, string][]) => rows.map(([id, parent, detail]) => ({ id, parent, detail }));
    // outside any correlated subquery, a scan or a kind lookup runs once: fine
    expect(quadraticSteps(plan([1, 0, 'SCAN records'], [2, 0, 'SEARCH records USING INDEX records_kind (kind=?)']))).toEqual([]);
    const perRow = plan(
      [1, 0, 'SCAN r'],
      [2, 0, 'CORRELATED SCALAR SUBQUERY 1'],
      [3, 2, 'SEARCH x USING INDEX records_session (session=? AND ts_ms>?)'],
      [4, 2, 'SCAN j VIRTUAL TABLE INDEX 1:'],
      [5, 2, 'SEARCH s USING AUTOMATIC COVERING INDEX (session=?)'],
      [6, 2, 'MATERIALIZE once'],
      [7, 6, 'SCAN records'],
      [8, 2, 'CO-ROUTINE (subquery-3)'],
      [9, 8, 'SEARCH y USING COVERING INDEX records_kind (kind=? AND ts_ms>?)'],
      [10, 8, 'SCAN once'],
      [11, 8, 'SEARCH z USING INDEX records_kind (kind=?)'],
      [12, 2, 'MATERIALIZE (subquery-4)'],
      [13, 12, 'SCAN w'],
      [14, 2, 'SCAN (subquery-3)'],
      [15, 2, 'MULTI-INDEX OR'],
    );
    expect(quadraticSteps(perRow)).toEqual(['SCAN once', 'SEARCH z USING INDEX records_kind (kind=?)', 'SCAN w', 'MULTI-INDEX OR']);
    // a join's inner loop is run per row of its outer loops, correlated or not: a full scan there is quadratic
    expect(quadraticSteps(plan([1, 0, 'SCAN r'], [2, 0, 'SEARCH s USING INDEX streams_1 (session=?)'], [3, 0, 'SCAN c LEFT-JOIN']))).toEqual([
      'SCAN c LEFT-JOIN',
    ]);
    expect(quadraticSteps(plan([1, 0, 'SCAN r'], [2, 0, 'SEARCH c USING AUTOMATIC COVERING INDEX (stream=?) LEFT-JOIN']))).toEqual([]);
  });

  for (const name of QUERY_NAMES) {
    it(`${name}`, () => {
      const steps = fileSteps(db, readFileSync(join(QUERIES_DIR, `${name}.sql`), 'utf8'));
      const known = KNOWN_SLOW.get(name) ?? [];
      expect(steps, `${name}: quadratic steps inside a correlated subquery (KNOWN_SLOW lists ${JSON.stringify(known)})`).toEqual(known);
    });
  }
});
