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
  return () => withSortThreads(db, () => {
    for (const i of indexes) db.exec(i.sql);
  });
}

/** Runs `sort` with SQLite's sorts on helper threads: the other core has nothing to do meanwhile. */
function withSortThreads(db: Db, sort: () => void): void {
  const threads = db.pragma('threads', { simple: true }) as number;
  db.pragma(`threads = ${SORT_THREADS}`);
  try {
    sort();
  } finally {
    db.pragma(`threads = ${threads}`);
  }
}

/** SQLite's sorter threads for an index build (the machine this is measured on has two cores). */
const SORT_THREADS = 2;

/** Where a load writes a table's rows, and how they reach the table. */
export interface StagedTable {
  /** The table to INSERT into: the table itself, or its staging table. */
  into: string;
  /** Copies the staged rows into the table in rowid order (call before its indexes are rebuilt). */
  finish(): void;
}

/**
 * Loading rows into an empty table whose rowid is not the order they come in (derive writes session by
 * session; an event's rowid is its record's, in log order): each insert lands on a random page of the
 * table's B-tree, which costs more the wider the rows. With the ids a real SDK mints (UUID sessions and
 * streams, 50-character event ids), 465k events cost 2.2 s inserted so against 1.3 s appended to a staging
 * table and copied over in rowid order. The staging table's columns have no type, so each value is kept as
 * bound and the table's own affinities apply on the copy, as they would have on the insert. A table that
 * already holds rows (a live round) is written in place.
 */
export function stagedLoad(db: Db, table: 'events' | 'requests'): StagedTable {
  if (db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined) return { into: table, finish: () => {} };
  const info = db.prepare(`SELECT name, pk FROM pragma_table_info(?)`).all(table) as { name: string; pk: number }[];
  const columns = info.map((c) => `"${c.name}"`).join(', ');
  const rowid = info.find((c) => c.pk === 1)!.name;
  const staging = `temp."${table}_load"`;
  db.exec(`DROP TABLE IF EXISTS ${staging}; CREATE TABLE ${staging} (${columns})`);
  return {
    into: staging,
    finish() {
      withSortThreads(db, () => db.exec(`INSERT INTO main.${table} (${columns}) SELECT ${columns} FROM ${staging} ORDER BY "${rowid}"`));
      db.exec(`DROP TABLE ${staging}`);
    },
  };
}
