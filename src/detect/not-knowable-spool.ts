import type { NotKnowable } from '../model/finding.js';
import type { Db } from '../store/db.js';

/**
 * What the rules could not judge, set aside in a temporary table while they run and read back,
 * in the order it came, when the report is made. A 10M-line log holds about 300k of them (49 MB
 * as objects), and they were held through the rules' busiest moments; the report needs them only
 * at its end.
 */
export class NotKnowableSpool {
  private static made = 0;

  static create(db: Db): NotKnowableSpool {
    const name = `report_not_knowable_${++NotKnowableSpool.made}`;
    db.exec(`CREATE TEMP TABLE ${name} (n INTEGER PRIMARY KEY, rule TEXT NOT NULL, session TEXT, reason TEXT NOT NULL)`);
    return new NotKnowableSpool(db, name);
  }

  /** The rule ids as the rules gave them, so that the objects read back share them. */
  private readonly rules = new Map<string, string>();
  private dropped = false;

  private constructor(
    private readonly db: Db,
    private readonly name: string,
  ) {}

  add(list: readonly NotKnowable[]): void {
    const insert = this.db.prepare(`INSERT INTO temp.${this.name} (rule, session, reason) VALUES (?, ?, ?)`);
    this.db.transaction(() => {
      for (const n of list) {
        if (!this.rules.has(n.rule)) this.rules.set(n.rule, n.rule);
        insert.run(n.rule, n.session, n.reason);
      }
    })();
  }

  /** Every one, in the order added; the table is dropped. */
  takeAll(): NotKnowable[] {
    const rows = this.db.prepare(`SELECT rule, session, reason FROM temp.${this.name} ORDER BY n`).raw(true).all() as [string, string | null, string][];
    this.drop();
    return rows.map(([rule, session, reason]) => ({ rule: this.rules.get(rule) ?? rule, session, reason }));
  }

  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS temp.${this.name}`);
  }
}
