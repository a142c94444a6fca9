// Where a line that may come again was first read (normalize/repeated-lines.ts says which lines, and why).
// Asked by the store, which takes every line in order whichever thread normalized it, and across the
// files of a run in the order they are read: an export cut into pages whose bounds overlap repeats the
// lines at each bound at the head of the next page.

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

  /** A source whose load was undone: no later line may be taken for a repeat of a line that is not stored. */
  forget(source: number): void {
    for (const [key, r] of this.lines) if (r.source === source) this.lines.delete(key);
  }
}
