import type { Db } from './db.js';

// Where a line that may come again was first read (normalize/repeated-lines.ts says which lines, and why).
// Asked by the store, which takes every line in order whichever thread normalized it, and across the
// files of a run in the order they are read: an export cut into pages whose bounds overlap repeats the
// lines at each bound at the head of the next page. A --db file keeps the window for its next run
// (recent_lines), for a page ingested after the one before it.

/** Lines remembered: a shipper's batch is at most a few thousand lines. */
const WINDOW = 16_384;

/** Where a remembered line is, and the time of its first record: equal keys of different times are not one line. */
interface Remembered {
  source: number;
  line: number;
  tsMs: number;
}

export class RecentLines {
  /** Each key's latest note, with that note's number: a ring slot forgets its key only if it is the key's latest note. */
  private readonly lines = new Map<number, { at: Remembered; noted: number }>();
  /** The keys in the order noted, the oldest at `next` once full: the one to forget next. */
  private readonly order: number[] = [];
  private next = 0;
  private notes = 0;

  constructor(private readonly window = WINDOW) {}

  /** Where an earlier line of these bytes still in the window is, if any. */
  earlier(key: number, tsMs: number): Remembered | undefined {
    const r = this.lines.get(key)?.at;
    return r !== undefined && r.tsMs === tsMs ? r : undefined;
  }

  /** A line to recognize if it comes again. */
  note(key: number, at: Remembered): void {
    // A ring, not a Map's insertion order: finding a Map's oldest key walks past every key deleted
    // before it, and a window that deletes one key a line made that walk a window long (1M lines: 2 s).
    // A key can sit in the ring twice (noted again after its source was forgotten, or under another
    // time): the older slot's eviction must not take the newer note with it.
    if (this.order.length < this.window) this.order.push(key);
    else {
      const old = this.order[this.next]!;
      if (this.lines.get(old)?.noted === this.notes - this.window) this.lines.delete(old);
      this.order[this.next] = key;
      this.next = (this.next + 1) % this.window;
    }
    this.lines.set(key, { at, noted: this.notes++ });
  }

  /** The lines remembered, oldest first, each once, in the order of its latest note. */
  remembered(): [number, Remembered][] {
    return [...this.lines].sort((a, b) => a[1].noted - b[1].noted).map(([key, r]) => [key, r.at]);
  }

  /** A source whose load was undone: no later line may be taken for a repeat of a line that is not stored. */
  forget(source: number): void {
    for (const [key, r] of this.lines) if (r.at.source === source) this.lines.delete(key);
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
