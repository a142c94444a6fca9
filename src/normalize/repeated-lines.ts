// A log shipper that delivers at least once (Fluent Bit, Vector, Filebeat retrying a batch whose
// acknowledgement was lost) writes some lines twice, byte for byte. Read twice, one event.sent is
// an event id emitted twice (event-id-regression), one call a tools/call executed twice
// (duplicate-tool-call), one upgrade a second resumption: the independent fuzzed log's 175 repeated
// lines in 100k made 80 of its 82 event-id-regression errors. A server writes its own records once:
// two lines equal byte for byte, their times to the millisecond, are one line delivered again, and
// one of them is read. To the second they may be two records (five retries of one request within a
// second): a line whose times fall on whole seconds is not remembered.
//
// Only a line that gave records is remembered (a repeated bad line is rejected again, and counted),
// and only the last WINDOW of them per source: a shipper re-sends a batch, not the day, and the
// window keeps memory flat whatever the log's length.

/** Lines remembered per source: a shipper's batch is at most a few thousand lines. */
export const WINDOW = 16_384;

export class RecentLines {
  /** Each remembered line's number, by its text. */
  private readonly lines = new Map<string, number>();
  /** The same texts in the order noted, the oldest at `next` once full: the one to forget next. */
  private readonly order: string[] = [];
  private next = 0;

  constructor(private readonly window = WINDOW) {}

  /** The line number of an earlier line of these bytes still in the window, if any. */
  earlier(text: string): number | undefined {
    return this.lines.get(text);
  }

  /** A line that gave these records, to recognize it if it comes again (its text is not in the window). */
  note(text: string, line: number, records: readonly { tsMs: number }[]): void {
    if (records.every(toTheMillisecond)) this.remember(text, line);
  }

  private remember(text: string, line: number): void {
    // A ring, not a Map's insertion order: finding a Map's oldest key walks past every key deleted
    // before it, and a window that deletes one key a line made that walk a window long (1M lines: 2 s).
    if (this.order.length < this.window) this.order.push(text);
    else {
      this.lines.delete(this.order[this.next]!);
      this.order[this.next] = text;
      this.next = (this.next + 1) % this.window;
    }
    this.lines.set(text, line);
  }
}

/** A time with digits below the second (one that falls on a whole second is taken as written to the second: at worst a repeat goes unseen). */
function toTheMillisecond(r: { tsMs: number }): boolean {
  return r.tsMs % 1000 !== 0;
}
