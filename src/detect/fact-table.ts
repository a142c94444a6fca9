import type { Db } from '../store/db.js';
import { loadQuery, queryParts } from '../store/queries.js';
import type { Statement } from 'better-sqlite3';
import { buildStages, dropStages, namedRows, queryParams } from './query-rows.js';
import type { DetectOptions } from './types.js';

/**
 * A fact query's rows set apart in a temporary table, read again in the
 * query's order as often as the rules ask: SQLite holds them, on its page
 * budget and in a temporary file beyond it, not the heap. (At 3M lines the
 * reconnects and served upgrades held as objects were about 230 MB live, and
 * V8 let them grow to twice that.) A rule reads a few hundred rows at a time
 * (rows()) and keeps only what it finds.
 *
 * better-sqlite3 refuses a write while any statement is being iterated, so
 * the table is filled when it is made, never lazily from inside a read.
 */
export class FactTable<T> {
  private static made = 0;
  readonly name: string;
  private readonly columns: string[];
  private dropped = false;
  /** The highest `seq`: the rows are 1..lastSeq, in the query's order. */
  private readonly lastSeq: number;
  /** `where` statements by column: silent-reset looks a reconnect up per fresh upgrade. */
  private readonly lookups = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    query: string,
    opts: DetectOptions,
  ) {
    const parts = queryParts(loadQuery(query));
    this.name = `fact_${++FactTable.made}`;
    try {
      // A staged query's TEMP tables (store/queries.ts) live only until its answer is set apart.
      buildStages(db, parts, opts);
      const sql = parts.select;
      this.columns = db.prepare(sql).columns().map((c) => c.name);
      // Untyped columns: a value is stored as the query gave it (a declared type
      // would turn an event id '007' into 7). `seq` keeps the query's order.
      const columnList = this.columns.map(quoteName).join(', ');
      db.exec(`CREATE TEMP TABLE ${this.name} (seq INTEGER PRIMARY KEY, ${columnList})`);
      db.prepare(`INSERT INTO temp.${this.name} (${columnList}) ${sql}`).run(queryParams(sql, opts));
      this.lastSeq = (db.prepare(`SELECT max(seq) FROM temp.${this.name}`).pluck().get() as number | null) ?? 0;
    } finally {
      dropStages(db, parts);
    }
  }

  /** An index for `where` lookups on one column. */
  indexOn(column: string): this {
    this.db.exec(`CREATE INDEX temp.${this.name}_${column} ON ${this.name} (${quoteName(column)})`);
    return this;
  }

  /**
   * Every row, in the query's order. The rules read a fact whole several times over, and each
   * value better-sqlite3 hands over costs about as much as each row it steps to: the rows come
   * as JSON, ROWS_PER_READ at a time (1M production lines, the 68k rows of the reconnect
   * references: 0.30 s a read row by row, 0.16 s so; a range of `seq` a read, 0.09 s).
   */
  rows(): Generator<T> {
    this.refuseDropped();
    return this.readJson();
  }

  /** The rows whose `column` equals `value`, in the query's order. */
  where(column: string, value: unknown): Generator<T> {
    this.refuseDropped();
    let stmt = this.lookups.get(column);
    if (stmt === undefined) {
      stmt = this.db.prepare(`SELECT * FROM temp.${this.name} WHERE ${quoteName(column)} = ? ORDER BY seq`);
      this.lookups.set(column, stmt);
    }
    return this.read(stmt, [value]);
  }

  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS temp.${this.name}`);
  }

  private refuseDropped(): void {
    if (this.dropped) throw new Error(`fact table ${this.name} was read after it was dropped`);
  }

  private *readJson(): Generator<T> {
    // Read from the table, no value carries a JSON subtype: a column of JSON text stays a string.
    // One range of seq a read, joined as it is scanned: no sort (json_group_array(… ORDER BY seq) with
    // GROUP BY seq / n sorted the rows twice), and no statement left open between reads.
    const values = this.columns.map(quoteName).join(', ');
    const chunk = this.db
      .prepare(`SELECT '[' || group_concat(row, ',') || ']' FROM (SELECT json_array(${values}) AS row FROM temp.${this.name} WHERE seq > ? AND seq <= ? ORDER BY seq)`)
      .pluck();
    for (let after = 0; after < this.lastSeq; after += ROWS_PER_READ) {
      this.refuseDropped();
      const json = chunk.get(after, after + ROWS_PER_READ) as string | null;
      if (json !== null) yield* namedRows<T>(this.columns, JSON.parse(json) as unknown[][]);
    }
  }

  private *read(stmt: Statement, args: unknown[]): Generator<T> {
    // column 0 is seq
    yield* namedRows<T>(this.columns, stmt.raw(true).iterate(...args) as IterableIterator<unknown[]>, 1);
  }
}

/** Rows a read of a whole fact takes in one value (memory: a few hundred KB of JSON at a time). */
const ROWS_PER_READ = 256;

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
