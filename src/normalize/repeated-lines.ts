// A log shipper that delivers at least once (Fluent Bit, Vector, Filebeat retrying a batch whose
// acknowledgement was lost) writes some lines twice, byte for byte. Read twice, one event.sent is
// an event id emitted twice (event-id-regression), one call a tools/call executed twice
// (duplicate-tool-call), one upgrade a second resumption: the independent fuzzed log's 175 repeated
// lines in 100k made 80 of its 82 event-id-regression errors. A server writes its own records once:
// two lines equal byte for byte, their times to the millisecond, are one line delivered again, and
// one of them is read. To the second they may be two records (five retries of one request within a
// second): a line whose times fall on whole seconds is not remembered. An export cut into pages whose
// bounds overlap repeats the lines at each bound in the next file: the window runs on across a run's files.
// A line is known by its record's own text, inside whatever envelope carried it (LineOutcome's `inner`): the
// app's file beside the pod's CRI log of the same lines is one record delivered through two channels.
//
// Only a line that gave records is remembered (a repeated bad line is rejected again, and counted),
// and only the last WINDOW of them: a shipper re-sends a batch, not the day, and the window keeps
// memory flat whatever the log's length.
//
// Normalizing says what a line is, on whichever thread reads it: its key, and whether it may be taken
// for a repeat. Whether it came before is asked in the store (store/recent-lines.ts), which takes every
// line in order. Each thread asking on its own missed a repeat whose first delivery the other thread
// had read, as the threads' timing fell.

/**
 * A line's bytes as a number, the same on every thread: 53 bits of two 32-bit multiplicative hashes
 * (cyrb53's construction). Two different lines are taken for one only if their keys and their first
 * records' milliseconds are equal, and both are in the window: by chance, about once in 10^15 lines.
 */
export function lineKey(text: string): number {
  let h1 = 0xdeadbeef ^ text.length;
  let h2 = 0x41c6ce57 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Whether a line that gave these records may be recognized when it comes again: every time has digits below
 * the second, or the line writes its times with them (`10:00:02.000Z`: on a whole second, but written to the
 * millisecond; read as written to the second, a repeat of it was a second record, one in a thousand lines).
 */
export function rememberable(records: readonly { tsMs: number }[], text: string): boolean {
  // A time on a whole second written without a fraction (or as epoch milliseconds) is taken as written to the
  // second: at worst a repeat goes unseen.
  return records.length > 0 && (records.every((r) => r.tsMs % 1000 !== 0) || FRACTION.test(text));
}

/** An RFC 3339 time written with digits below the second. */
const FRACTION = /\d\d:\d\d:\d\d[.,]\d/;
