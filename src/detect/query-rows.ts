import type { Db } from '../store/db.js';
import type { DetectOptions } from './types.js';
import { loadQuery } from '../store/queries.js';

/**
 * Runs queries/<name>.sql with the detect options bound as named parameters
 * (:storm_count, :storm_window_ms, :duplicate_call_window_ms, :fence_grace_ms, :stranding_window_ms).
 * Convention for detector queries: one row per finding, with `session`,
 * `at_ms` and `evidence` (a JSON array of records.id, in reading order).
 */
export function queryRows<T = Record<string, unknown>>(db: Db, name: string, opts: DetectOptions, extra: Record<string, unknown> = {}): T[] {
  const sql = loadQuery(name);
  const stmt = db.prepare(sql);
  const all: Record<string, unknown> = {
    storm_count: opts.stormCount,
    storm_window_ms: opts.stormWindowMs,
    duplicate_call_window_ms: opts.duplicateCallWindowMs,
    fence_grace_ms: opts.fenceGraceMs,
    stranding_window_ms: opts.strandingWindowMs,
    ...extra,
  };
  // better-sqlite3 rejects named parameters the statement does not use.
  const used = new Set(sql.match(/[:@$][a-z_]+/g)?.map((p) => p.slice(1)) ?? []);
  const bound = Object.fromEntries(Object.entries(all).filter(([k]) => used.has(k)));
  // Raw arrays, named here: better-sqlite3 builds row objects several times slower
  // than these literals, and some detector queries hand over wide rows by the tens of thousands.
  const names = stmt.columns().map((c) => c.name);
  return (stmt.raw(true).all(bound) as unknown[][]).map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
    return row as T;
  });
}

/** Evidence ids from a JSON array column, nulls dropped, first occurrence kept. */
export function evidenceIds(json: unknown): number[] {
  if (typeof json !== 'string') return [];
  const ids = (JSON.parse(json) as (number | null)[]).filter((x): x is number => typeof x === 'number');
  return [...new Set(ids)];
}
