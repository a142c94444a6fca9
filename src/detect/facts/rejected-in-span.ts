import type { Db } from '../../store/db.js';

// Lines the log could not read inside a session's span. A rule that argues from absence ("no stream ever
// sent this id") proves nothing where one of them may be the record it looks for: a writer that crashed
// mid-line, a shipper's truncation, a mis-cased field rejected loudly. A rejected line keeps its file and
// line, not a time (it may have none to read): its time is taken as the time of the record before it in
// its file, which a file written in time order makes the right one.

interface RejectedLine {
  line: number;
  /** The time of the record before it in its file; null where none is. */
  beforeMs: number | null;
}

export interface RejectedInSpan {
  count: number;
  /** The first of them, to cite. */
  first: { file: string; line: number };
}

export class RejectedLines {
  private bySource?: Map<number, RejectedLine[]>;
  private readonly names = new Map<number, string>();

  constructor(private readonly db: Db) {}

  /**
   * The rejected lines in the files holding `session`, each after the session's first record in its file
   * and timed at or before `untilMs`; undefined where there are none. Read once per run, and only when
   * asked: a log without rejected lines pays one probe.
   */
  within(session: string, untilMs: number): RejectedInSpan | undefined {
    const bySource = this.load();
    if (bySource.size === 0) return undefined;
    const spans = this.db
      .prepare('SELECT source_id AS source, min(line) AS lo FROM records WHERE session = ? AND ts_ms <= ? GROUP BY source_id ORDER BY source_id')
      .all(session, untilMs) as { source: number; lo: number }[];
    let count = 0;
    let first: RejectedInSpan['first'] | undefined;
    for (const { source, lo } of spans) {
      for (const r of bySource.get(source) ?? []) {
        if (r.line < lo || r.beforeMs === null || r.beforeMs > untilMs) continue;
        count++;
        first ??= { file: this.nameOf(source), line: r.line };
      }
    }
    return first === undefined ? undefined : { count, first };
  }

  private load(): Map<number, RejectedLine[]> {
    if (this.bySource !== undefined) return this.bySource;
    const rows = this.db
      .prepare(
        `SELECT x.source_id AS source, x.line,
           (SELECT r.ts_ms FROM records r WHERE r.source_id = x.source_id AND r.line <= x.line ORDER BY r.line DESC LIMIT 1) AS beforeMs
         FROM rejected x ORDER BY x.source_id, x.line`,
      )
      .all() as ({ source: number } & RejectedLine)[];
    const bySource = new Map<number, RejectedLine[]>();
    for (const { source, line, beforeMs } of rows) {
      const list = bySource.get(source);
      if (list === undefined) bySource.set(source, [{ line, beforeMs }]);
      else list.push({ line, beforeMs });
    }
    return (this.bySource = bySource);
  }

  private nameOf(source: number): string {
    let name = this.names.get(source);
    if (name === undefined) {
      name = this.db.prepare('SELECT name FROM sources WHERE id = ?').pluck().get(source) as string;
      this.names.set(source, name);
    }
    return name;
  }
}
