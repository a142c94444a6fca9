import type { Db } from './db.js';

// Where a line that may come again was first read (normalize/repeated-lines.ts says which lines, and why).
// Asked by the store, which takes every line in order whichever thread normalized it, and across the
// files of a run in the order they are read: an export cut into pages whose bounds overlap repeats the
// lines at each bound at the head of the next page. A --db file keeps the window for its next run
// (recent_lines), for a page ingested after the one before it.

/** Lines remembered: a shipper's batch is at most a few thousand lines. */
export const WINDOW = 16_384;

/** Where a remembered line is, and the time of its first record: equal keys of different times are not one line. */
interface Remembered {
  source: number;
  line: number;
  tsMs: number;
}

export class RecentLines {
  private readonly lines = new Map<number, Remembered>();
  /** The same keys in the order noted, the oldest at `next` once full: the one to forget next. */
  private readonly order: number[] = [];
  private next = 0;

  constructor(private readonly window = WINDOW) {}

  /** Where an earlier line of these bytes still in the window is, if any. */
  earlier(key: number, tsMs: number): Remembered | undefined {
    const r = this.lines.get(key);
    return r !== undefined && r.tsMs === tsMs ? r : undefined;
  }

  /** A line to recognize if it comes again. */
  note(key: number, at: Remembered): void {
    // A ring, not a Map's insertion order: finding a Map's oldest key walks past every key deleted
    // before it, and a window that deletes one key a line made that walk a window long (1M lines: 2 s).
    if (this.order.length < this.window) this.order.push(key);
    else {
      this.lines.delete(this.order[this.next]!);
      this.order[this.next] = key;
      this.next = (this.next + 1) % this.window;
    }
    this.lines.set(key, at);
  }

  /** The lines remembered, oldest first, each once (a key noted again after it was forgotten sits in the ring twice). */
  remembered(): [number, Remembered][] {
    const out: [number, Remembered][] = [];
    const seen = new Set<number>();
    const n = this.order.length;
    for (let k = n - 1; k >= 0; k--) {
      const key = this.order[(this.next + k) % n]!;
      const r = this.lines.get(key);
      if (r !== undefined && !seen.has(key)) out.push([key, r]);
      seen.add(key);
    }
    return out.reverse();
  }

  /** A source whose load was undone: no later line may be taken for a repeat of a line that is not stored. */
  forget(source: number): void {
    for (const [key, r] of this.lines) if (r.source === source) this.lines.delete(key);
  }
}

/** The window the last run into this database left (empty for a new one). */
export function loadRecentLines(db: Db): RecentLines {
  const recent = new RecentLines();
  const rows = db.prepare('SELECT key, source_id AS source, line, ts_ms AS tsMs FROM recent_lines ORDER BY ord').all() as (Remembered & { key: number })[];
  for (const { key, ...at } of rows) recent.note(key, at);
  return recent;
}

/** Keeps the window for the next run into this database. */
export function saveRecentLines(db: Db, recent: RecentLines): void {
  const insert = db.prepare('INSERT INTO recent_lines (key, source_id, line, ts_ms) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    db.exec('DELETE FROM recent_lines');
    for (const [key, r] of recent.remembered()) insert.run(key, r.source, r.line, r.tsMs);
  })();
}
