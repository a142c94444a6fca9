import { ruleOf } from './rules/index.js';
import { evidenceInLogOrder, resolveEvidence } from './evidence.js';
import type { RawFinding } from './types.js';
import type { Finding, LostSession } from '../model/finding.js';
import { isoTime } from '../model/phrasing.js';
import type { Db } from '../store/db.js';

/**
 * A report's findings, set down in a temporary table as the rules report them and read
 * back in timeline order a page at a time, their evidence resolved a page at a time.
 * A bad server's report holds hundreds of thousands of findings; as objects they were
 * most of a run's memory (about 650 bytes each at 340k findings), here they are SQLite's,
 * on its page budget and in a temporary file beyond it.
 *
 * A narrowing (`filter`) marks the rows it keeps, one level up: every earlier view still
 * reads what it read, so a report and the report filtered from it can both be rendered.
 */
export class FindingTable implements Iterable<Finding> {
  private static made = 0;

  static create(db: Db): FindingTable {
    const name = `report_findings_${++FindingTable.made}`;
    // The order index (seal) leaves the message and arrival order to a small sort of ties.
    db.exec(`CREATE TEMP TABLE ${name} (${FINDING_COLUMNS})`);
    return new FindingTable(db, { name, levels: 0, sealed: false, dropped: false }, 0);
  }

  /**
   * A sealed report's findings copied from a kept table (`from`, schema-qualified: the findings cache,
   * detect/report-cache.ts), each with its row number, the last key of the report's order.
   */
  static copiedFrom(db: Db, from: string): FindingTable {
    const copy = FindingTable.create(db);
    db.exec(`INSERT INTO temp.${copy.table.name} (n, ${COPIED}) SELECT n, ${COPIED} FROM ${from} ORDER BY n`);
    return copy.seal();
  }

  private lengthCache: number | undefined;
  private countsCache: Map<string, number> | undefined;

  private constructor(
    private readonly db: Db,
    /** What every view of the table shares. */
    private readonly table: { name: string; levels: number; sealed: boolean; dropped: boolean },
    private readonly level: number,
  ) {}

  /** One rule's findings, in the order it reported them (the order of ties in the report). */
  add(findings: readonly RawFinding[]): void {
    if (this.table.sealed) throw new Error('findings added after the report was sealed');
    insertFindings(this.db, `temp.${this.table.name}`, findings);
  }

  /**
   * The findings of these rules that another thread set down in a findings file
   * (detect/findings-file.ts), each rule's in the order it reported them. Rows of any other
   * rule stay out: a thread that died after writing a rule's findings, before it said so,
   * leaves that rule to be judged again here.
   */
  adopt(path: string, rules: readonly string[]): void {
    if (this.table.sealed) throw new Error('findings added after the report was sealed');
    if (rules.length === 0) return;
    const schema = `${this.table.name}_adopted`;
    this.db.prepare(`ATTACH ? AS ${schema}`).run(path);
    try {
      this.db
        .prepare(
          `INSERT INTO temp.${this.table.name} (${COPIED}) SELECT ${COPIED} FROM ${schema}.${FILE_TABLE}
           WHERE rule IN (SELECT value FROM json_each(?)) ORDER BY n`,
        )
        .run(JSON.stringify(rules));
    } finally {
      this.db.exec(`DETACH ${schema}`);
    }
  }

  /**
   * For each finding of `rule` (by row), the other rules whose findings cite the record its own
   * evidence names last: engine-divergence's upgrade, which other rules may explain.
   */
  citedBy(rule: string): Map<number, Set<string>> {
    const name = this.table.name;
    this.db.exec(`CREATE INDEX IF NOT EXISTS temp.${name}_last ON ${name} (rule, last_evidence)`);
    // One pass over every cited record, each looked up by index. CROSS JOIN fixes that order: the
    // table has no statistics, and a planner that put the findings of `rule` outermost would read
    // every finding's evidence once per such finding.
    const rows = this.db.prepare(
      `SELECT DISTINCT d.n, o.rule FROM temp.${name} o CROSS JOIN json_each(o.evidence) e CROSS JOIN temp.${name} d
       WHERE o.rule <> ? AND d.rule = ? AND d.last_evidence = e.value`,
    );
    const out = new Map<number, Set<string>>();
    for (const [n, citing] of rows.raw().iterate(rule, rule) as IterableIterator<[number, string]>) {
      let rules = out.get(n);
      if (rules === undefined) out.set(n, (rules = new Set()));
      rules.add(citing);
    }
    return out;
  }

  /** Appends to the message of each finding of `rule` its own words (by row), or `otherwise`. */
  appendToMessages(rule: string, words: ReadonlyMap<number, string>, otherwise: string): void {
    if (this.table.sealed) throw new Error('findings changed after the report was sealed');
    const name = this.table.name;
    this.db.exec(`CREATE TEMP TABLE ${name}_words (n INTEGER PRIMARY KEY, words TEXT NOT NULL)`);
    try {
      const insert = this.db.prepare(`INSERT INTO temp.${name}_words (n, words) VALUES (?, ?)`);
      this.db.transaction(() => {
        for (const [n, text] of words) insert.run(n, text);
      })();
      this.db
        .prepare(`UPDATE temp.${name} SET message = message || ' ' || coalesce((SELECT w.words FROM temp.${name}_words w WHERE w.n = ${name}.n), ?) WHERE rule = ?`)
        .run(otherwise, rule);
    } finally {
      this.db.exec(`DROP TABLE temp.${name}_words`);
    }
  }

  /** Done adding: the indexes the reads follow are built. */
  seal(): this {
    if (this.table.sealed) return this;
    this.table.sealed = true;
    const name = this.table.name;
    this.db.exec(`CREATE INDEX temp.${name}_time ON ${name} (at_ms, rule, ifnull(session, ''));
      CREATE INDEX temp.${name}_rule ON ${name} (rule, at_ms, ifnull(session, ''));`);
    return this;
  }

  /** How many findings this view holds. */
  get length(): number {
    return (this.lengthCache ??= [...this.countByRule().values()].reduce((a, b) => a + b, 0));
  }

  /** Findings per rule id, for the rules that have some. */
  countByRule(): ReadonlyMap<string, number> {
    this.refuseUnsealed();
    this.countsCache ??= new Map(
      this.db.prepare(`SELECT rule, count(*) FROM temp.${this.table.name} WHERE level >= ? GROUP BY rule`).raw().all(this.level) as [string, number][],
    );
    return this.countsCache;
  }

  /**
   * Findings per rule id on these sessions, each after its own time: one scan of the table, the sessions an IN list
   * (a join with them scanned the sessions once per finding: 300k findings, 2,000 sessions took 45 s; this, 0.16 s).
   */
  countByRuleOn(sessions: readonly LostSession[]): ReadonlyMap<string, number> {
    this.refuseUnsealed();
    const after = new Map(sessions.map((s) => [s.session, s.after_ms]));
    const counts = new Map<string, number>();
    if (after.size === 0) return counts;
    const rows = this.db
      .prepare(`SELECT rule, session, at_ms FROM temp.${this.table.name} WHERE level >= ? AND session IN (SELECT value FROM json_each(?))`)
      .raw()
      .iterate(this.level, JSON.stringify([...after.keys()])) as IterableIterator<[string, string, number]>;
    for (const [rule, session, atMs] of rows) if (atMs > after.get(session)!) counts.set(rule, (counts.get(rule) ?? 0) + 1);
    return counts;
  }

  /** Every finding, in timeline order (render/common.ts sortFindings). */
  [Symbol.iterator](): Iterator<Finding> {
    return findingsOf(this.read(`WHERE level >= ? ORDER BY ${TIMELINE}`, [this.level]));
  }

  /** One rule's findings, in timeline order. */
  ofRule(rule: string): Iterable<Finding> {
    return { [Symbol.iterator]: () => findingsOf(this.read(`WHERE rule = ? AND level >= ? ORDER BY ${TIMELINE}`, [rule, this.level])) };
  }

  /**
   * The findings `keep` keeps, as a new view. Only the newest view of a table narrows: two
   * narrowings of one view would mark each other's rows.
   */
  filter(keep: (f: Finding) => boolean): FindingTable {
    if (this.level !== this.table.levels) throw new Error('only the newest view of a finding table can be filtered');
    // better-sqlite3 refuses a write while a read is open: the rows are marked once it is done.
    const kept: number[] = [];
    for (const [n, f] of this.read(`WHERE level >= ? ORDER BY n`, [this.level])) if (keep(f)) kept.push(n);
    const level = ++this.table.levels;
    const mark = this.db.prepare(`UPDATE temp.${this.table.name} SET level = ? WHERE n = ?`);
    this.db.transaction(() => {
      for (const n of kept) mark.run(level, n);
    })();
    return new FindingTable(this.db, this.table, level);
  }

  /** Every finding of the sealed report, whole (no narrowing yet), with its row number, into `to` (schema-qualified; copiedFrom reads it back). */
  copyTo(to: string): void {
    this.refuseUnsealed();
    if (this.table.levels !== 0) throw new Error('a narrowed report is not the whole report: copy it before filtering');
    this.db.exec(`INSERT INTO ${to} (n, ${COPIED}) SELECT n, ${COPIED} FROM temp.${this.table.name} ORDER BY n`);
  }

  /** The findings as an array (the library's Report, the TUI, HTML). */
  toArray(): Finding[] {
    return [...this];
  }

  /** Drops the table, for every view of it: a run that took its findings into memory needs it no more. */
  drop(): void {
    if (this.table.dropped) return;
    this.table.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS temp.${this.table.name}`);
  }

  /**
   * The rows as findings with their row number, a page at a time: one evidence lookup per page.
   * Each read prepares its own statement, so that a read left unfinished blocks no other.
   */
  private *read(tail: string, args: unknown[]): Generator<[number, Finding]> {
    this.refuseUnsealed();
    const stmt = this.db.prepare(`SELECT n, rule, session, at_ms, message, evidence FROM temp.${this.table.name} ${tail}`).raw(true);
    let page: Row[] = [];
    const resolved = (): [number, Finding][] => {
      const refs = resolveEvidence(this.db, page.flatMap((r) => r[5]));
      const out = page.map(([n, rule, session, atMs, message, evidenceIds]): [number, Finding] => [
        n,
        { rule, severity: ruleOf(rule).severity, session, at: isoTime(atMs), message, evidence: evidenceInLogOrder(evidenceIds, refs) },
      ]);
      page = [];
      return out;
    };
    for (const [n, rule, session, atMs, message, evidence] of stmt.iterate(...args) as IterableIterator<[number, string, string | null, number, string, string]>) {
      page.push([n, rule, session, atMs, message, JSON.parse(evidence) as number[]]);
      if (page.length === PAGE) yield* resolved();
    }
    yield* resolved();
  }

  private refuseUnsealed(): void {
    if (this.table.dropped) throw new Error('findings read after their table was dropped');
    if (!this.table.sealed) throw new Error('findings read before the report was sealed');
  }
}

/** A findings table's columns: at_ms is the finding's time as the report prints it (to the ms). */
export const FINDING_COLUMNS = `
  n INTEGER PRIMARY KEY,
  rule TEXT NOT NULL,
  session TEXT,
  at_ms INTEGER NOT NULL,
  message TEXT NOT NULL,
  evidence TEXT NOT NULL,
  last_evidence INTEGER,
  level INTEGER NOT NULL DEFAULT 0`;

/** The table of a findings file (detect/findings-file.ts), which `adopt` reads. */
export const FILE_TABLE = 'findings';

/** What a row holds of its finding; n and level are the table's own. */
const COPIED = 'rule, session, at_ms, message, evidence, last_evidence';

/** One rule's findings into a findings table (`table` schema-qualified), in one transaction, in the order given. */
export function insertFindings(db: Db, table: string, findings: readonly RawFinding[]): void {
  const insert = db.prepare(`INSERT INTO ${table} (${COPIED}) VALUES (?, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (const f of findings) {
      insert.run(f.rule, f.session, Math.trunc(f.atMs), f.message, JSON.stringify(f.evidenceIds), f.evidenceIds[f.evidenceIds.length - 1] ?? null);
    }
  })();
}

function* findingsOf(rows: Iterable<[number, Finding]>): Generator<Finding> {
  for (const [, f] of rows) yield f;
}

type Row = [n: number, rule: string, session: string | null, atMs: number, message: string, evidenceIds: number[]];

/** Findings read back per page: enough that one evidence lookup serves many, few enough to hold. */
const PAGE = 512;

/**
 * Timeline order, as render/common.ts sortFindings: time, rule, session, message, and for
 * findings alike in all of these the order their rule reported them. Text compares by code point
 * (SQLite's BINARY on UTF-8), as sortFindings does.
 */
const TIMELINE = `at_ms, rule, ifnull(session, ''), message, n`;
