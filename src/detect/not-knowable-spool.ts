import type { NotKnowable, OrderedNotKnowables } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { catalogueOrder } from './rules/index.js';

/**
 * What the rules could not judge, set aside in a temporary table while they run, and read back in
 * report order (render/common.ts sortNotKnowable) a page at a time once sealed. A log of servers
 * that leave counters out holds hundreds of thousands of them (326k at 3M fuzzed lines, 114 MB as one
 * sorted array at the run's peak); the report only ever walks them.
 */
export class NotKnowableSpool {
  private static made = 0;

  static create(db: Db): NotKnowableSpool {
    const name = `report_not_knowable_${++NotKnowableSpool.made}`;
    db.exec(`CREATE TEMP TABLE ${name} (n INTEGER PRIMARY KEY, rank INTEGER NOT NULL, rule TEXT NOT NULL, session TEXT, reason TEXT NOT NULL)`);
    return new NotKnowableSpool(db, name);
  }

  private dropped = false;

  private constructor(
    private readonly db: Db,
    private readonly name: string,
  ) {}

  add(list: readonly NotKnowable[]): void {
    const insert = this.db.prepare(`INSERT INTO temp.${this.name} (rank, rule, session, reason) VALUES (?, ?, ?, ?)`);
    this.db.transaction(() => {
      for (const n of list) insert.run(catalogueOrder(n.rule), n.rule, n.session, n.reason);
    })();
  }

  /**
   * Every one, in report order: catalogue order of the rule, then session (none as ''), then reason,
   * by code point (SQLite's BINARY order of UTF-8 is compareText's), ties in the order added. The
   * spool's table gives way to the sorted one.
   */
  seal(): NotKnowableTable {
    const sorted = `${this.name}_sorted`;
    sealedTable(this.db, sorted, `INSERT INTO temp.${sorted} (rule, session, reason)
      SELECT rule, session, reason FROM temp.${this.name} ORDER BY rank, ifnull(session, ''), reason, n`);
    this.drop();
    return new NotKnowableTable(this.db, sorted);
  }

  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS temp.${this.name}`);
  }
}

/** A sealed spool: read a page at a time, in report order (each page its own statement: the connection stays free between). */
export class NotKnowableTable implements OrderedNotKnowables {
  private static copies = 0;

  /** A sealed spool's rows copied from a kept table (`from`, schema-qualified: the findings cache, detect/report-cache.ts), in report order. */
  static copiedFrom(db: Db, from: string): NotKnowableTable {
    const name = `report_not_knowable_copy_${++NotKnowableTable.copies}`;
    sealedTable(db, name, `INSERT INTO temp.${name} (pos, rule, session, reason) SELECT pos, rule, session, reason FROM ${from} ORDER BY pos`);
    return new NotKnowableTable(db, name);
  }

  private count: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly name: string,
  ) {}

  get length(): number {
    return (this.count ??= this.db.prepare(`SELECT count(*) FROM temp.${this.name}`).pluck().get() as number);
  }

  [Symbol.iterator](): Iterator<NotKnowable> {
    return this.pages('', [])[Symbol.iterator]();
  }

  ofRule(rule: string): Iterable<NotKnowable> {
    return this.pages('rule = ? AND', [rule]);
  }

  /** The rows `where` keeps, in report order (the rule index holds pos: its rows come in that order too). */
  private *pages(where: string, params: unknown[]): Generator<NotKnowable> {
    const page = this.db.prepare(`SELECT pos, rule, session, reason FROM temp.${this.name} WHERE ${where} pos > ? ORDER BY pos LIMIT ${PAGE}`).raw(true);
    // One string per rule id, shared by its items.
    const rules = new Map<string, string>();
    for (let after = 0; ; ) {
      const rows = page.all(...params, after) as [number, string, string | null, string][];
      for (const [, rule, session, reason] of rows) yield { rule: rules.get(rule) ?? (rules.set(rule, rule), rule), session, reason };
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1]![0];
    }
  }

  filter(keep: (n: NotKnowable) => boolean): OrderedNotKnowables {
    return filtered(this, keep);
  }

  /** Every row, in report order, into `to` (schema-qualified; copiedFrom reads it back). */
  copyTo(to: string): void {
    this.db.exec(`INSERT INTO ${to} (pos, rule, session, reason) SELECT pos, rule, session, reason FROM temp.${this.name} ORDER BY pos`);
  }

  drop(): void {
    this.db.exec(`DROP TABLE IF EXISTS temp.${this.name}`);
  }
}

/** A sealed spool's table, filled in report order by `fill`, with the index its rule reads follow. */
function sealedTable(db: Db, name: string, fill: string): void {
  db.exec(`CREATE TEMP TABLE ${name} (pos INTEGER PRIMARY KEY, rule TEXT NOT NULL, session TEXT, reason TEXT NOT NULL);
    ${fill};
    CREATE INDEX temp.${name}_rule ON ${name} (rule);`);
}

/** A view of an ordered list that keeps what `keep` keeps: walked again each time, counted once. */
function filtered(from: OrderedNotKnowables, keep: (n: NotKnowable) => boolean): OrderedNotKnowables {
  let count: number | undefined;
  const view: OrderedNotKnowables = {
    *[Symbol.iterator]() {
      for (const n of from) if (keep(n)) yield n;
    },
    get length() {
      if (count === undefined) {
        count = 0;
        for (const _ of view) count++;
      }
      return count;
    },
    ofRule: (rule) => ({
      *[Symbol.iterator]() {
        for (const n of from.ofRule(rule)) if (keep(n)) yield n;
      },
    }),
    filter: (more) => filtered(view, more),
  };
  return view;
}

const PAGE = 512;
