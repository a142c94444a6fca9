import type { Db } from '../store/db.js';
import { PAIRING_SLACK_MS } from '../store/derive.js';
import { REJECTIONS_CITED } from '../model/phrasing.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../model/thresholds.js';
import { loadQuery, queryParts, type QueryParts } from '../store/queries.js';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions } from './types.js';

/**
 * The named parameters a query in queries/ may use, bound to the detect options
 * (and to the store's proxy pairing slack), limited to those `sql` uses:
 * better-sqlite3 rejects named parameters a statement does not have. `query`
 * binds a user's SQL with the same function, so it sees what the detectors see.
 */
export function queryParams(sql: string, opts: DetectOptions, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const all: Record<string, unknown> = {
    storm_count: opts.stormCount,
    storm_window_ms: opts.stormWindowMs,
    duplicate_call_window_ms: opts.duplicateCallWindowMs,
    fence_grace_ms: opts.fenceGraceMs,
    stranding_window_ms: opts.strandingWindowMs,
    orphan_window_ms: opts.orphanWindowMs,
    shared_session_store: opts.sharedSessionStore ? 1 : 0,
    pairing_slack_ms: PAIRING_SLACK_MS,
    clock_skew_allowance_ms: CLOCK_SKEW_ALLOWANCE_MS,
    cited_rejections: REJECTIONS_CITED,
    ...extra,
  };
  const used = new Set(namedParams(sql));
  return Object.fromEntries(Object.entries(all).filter(([k]) => used.has(k)));
}

/** Named parameters of a statement, comments left out (a `--` line may mention `:x`). */
export function namedParams(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, '');
  return [...new Set(code.match(/[:@$][a-z_]+/g)?.map((p) => p.slice(1)) ?? [])];
}

/** The parameters queryParams cannot bind from the options: a fact query's own arguments. */
export function unboundParams(sql: string): string[] {
  const bound = queryParams(sql, DEFAULT_DETECT_OPTIONS);
  return namedParams(sql).filter((p) => !(p in bound));
}

/**
 * Runs queries/<folder>/<name>.sql (e.g. rules/dual-writer) with the named
 * parameters of queryParams bound.
 * Convention for detector queries: one row per finding, with `session`,
 * `at_ms` and `evidence` (a JSON array of records.id, in reading order).
 */
export function queryRows<T = Record<string, unknown>>(db: Db, name: string, opts: DetectOptions, extra: Record<string, unknown> = {}): T[] {
  return Array.from(eachQueryRow<T>(db, name, opts, extra));
}

/**
 * queryRows one row at a time, for a caller that folds the rows into facts of
 * its own: the rows are never held all at once. (better-sqlite3's `all()` holds
 * every row twice over for a moment, and the wide fact queries return tens of
 * thousands: at 1M lines, reconnect-references peaked 140 MB above iterating.)
 */
export function* eachQueryRow<T = Record<string, unknown>>(db: Db, name: string, opts: DetectOptions, extra: Record<string, unknown> = {}): Generator<T> {
  const parts = queryParts(loadQuery(name));
  try {
    // Inside: a stage that fails drops the tables the ones before it built.
    buildStages(db, parts, opts, extra);
    const stmt = db.prepare(parts.select);
    // Raw arrays, named here: better-sqlite3 builds row objects several times slower
    // than these literals, and some detector queries hand over wide rows by the tens of thousands.
    yield* namedRows<T>(stmt.columns().map((c) => c.name), stmt.raw(true).iterate(queryParams(parts.select, opts, extra)) as IterableIterator<unknown[]>);
  } catch (err) {
    throw inQueryFile(name, err);
  } finally {
    dropStages(db, parts);
  }
}

/**
 * SQLite's own error (a typo, a column that is not there) names neither the file nor the rule: said of
 * queries/<name>.sql. Other failures (a locked or full database) keep their code for whoever tells them apart.
 */
function inQueryFile(name: string, err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code === 'SQLITE_ERROR' ? new Error(`queries/${name}.sql: ${(err as Error).message}`) : err;
}

/**
 * Builds a staged query's TEMP tables (store/queries.ts, queryParts), then the
 * planner statistics for them: without, the planner guessed a nested scan of
 * the staged duplicate-tool-call that took 131 s at 3M lines, 10 s with them.
 */
export function buildStages(db: Db, parts: QueryParts, opts: DetectOptions, extra: Record<string, unknown> = {}): void {
  if (parts.stages.length === 0) return;
  const taken = db.prepare("SELECT name FROM main.sqlite_schema WHERE name = @name UNION ALL SELECT name FROM temp.sqlite_schema WHERE name = @name AND type = 'view'").pluck();
  for (const table of parts.tables) {
    // A TEMP table named like a table or view of the timeline would hide it from every later query.
    if (taken.get({ name: table }) !== undefined) throw new Error(`a query stage would hide the timeline's ${table}`);
  }
  dropStages(db, parts); // left by a run that stopped half way
  for (const stage of parts.stages) db.prepare(stage).run(queryParams(stage, opts, extra));
  analyzeStages(db, parts.tables);
}

/** Planner statistics for staged tables, in full: from a sample (analysis_limit, store/statistics.ts) it walked a whole group per row. */
export function analyzeStages(db: Db, tables: readonly string[]): void {
  const limit = db.pragma('analysis_limit', { simple: true }) as number;
  db.pragma('analysis_limit = 0');
  try {
    for (const table of tables) db.exec(`ANALYZE temp.${table}`);
  } finally {
    db.pragma(`analysis_limit = ${limit}`);
  }
}

export function dropStages(db: Db, parts: QueryParts): void {
  for (const table of parts.tables) db.exec(`DROP TABLE IF EXISTS temp.${table}`);
}

/** Raw value arrays as rows named by `names`, the values from index `skip` on (a fact table's seq comes first). */
export function* namedRows<T>(names: readonly string[], rows: Iterable<unknown[]>, skip = 0): Generator<T> {
  const make = rowMaker(names, skip);
  for (const values of rows) yield make(values) as T;
}

/**
 * A function making one row object of a fixed shape from a value array. Keys set one by one in a loop (a
 * keyed store per column, forty columns for a reconnect) cost more than reading the row: an object literal
 * of the query's columns is built from one shape. The names are the query's own columns, quoted as JSON.
 */
function rowMaker(names: readonly string[], skip: number): (values: unknown[]) => Record<string, unknown> {
  const key = `${skip}\0${names.join('\0')}`;
  let make = ROW_MAKERS.get(key);
  if (make === undefined) {
    const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i + skip}]`).join(', ');
    make = new Function('v', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
    ROW_MAKERS.set(key, make);
  }
  return make;
}

const ROW_MAKERS = new Map<string, (values: unknown[]) => Record<string, unknown>>();

/** Evidence ids from a JSON array column, nulls dropped, first occurrence kept. */
export function evidenceIds(json: unknown): number[] {
  if (typeof json !== 'string') return [];
  const ids = (JSON.parse(json) as (number | null)[]).filter((x): x is number => typeof x === 'number');
  return [...new Set(ids)];
}
