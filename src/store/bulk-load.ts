import type { Db } from './db.js';

/**
 * Loading rows into an empty table: building its indexes once at the end,
 * from sorted keys, costs less than keeping each B-tree up to date row by
 * row. Call inside the load's transaction: the drop and the rebuild commit or
 * roll back with the rows, so a crash mid-load leaves the indexes as they
 * were. Returns the rebuild, to run before COMMIT (a no-op when the table
 * already held rows, whose indexes then stay in place). Primary keys and
 * UNIQUE constraints are not touched.
 *
 * A partial index (`WHERE`) stays: it holds the few rows its condition picks, so keeping it costs
 * little, while building it afterwards is another read of the whole table (at 1M production lines,
 * records_new_session and records_version took 0.2 s of the 1.9 s the rebuild took).
 */
export function deferIndexes(db: Db, table: 'records' | 'incarnations' | 'streams' | 'events' | 'requests'): () => void {
  if (db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined) return () => {};
  const indexes = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL AND NOT sql LIKE '% WHERE %' ORDER BY name",
    )
    .all(table) as { name: string; sql: string }[];
  for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
  return () => {
    // The sorts of an index build may run on helper threads: the other core has nothing to do meanwhile.
    const threads = db.pragma('threads', { simple: true }) as number;
    db.pragma(`threads = ${SORT_THREADS}`);
    try {
      for (const i of indexes) db.exec(i.sql);
    } finally {
      db.pragma(`threads = ${threads}`);
    }
  };
}

/** SQLite's sorter threads for an index build (the machine this is measured on has two cores). */
const SORT_THREADS = 2;
