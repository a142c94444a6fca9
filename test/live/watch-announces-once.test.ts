import { afterEach, describe, expect, it } from 'vitest';
import { LiveSession } from '../../src/live/session.js';
import type { InputLine } from '../../src/read/lines.js';
import { openDb, type Db } from '../../src/store/db.js';
import { healthyLines, rec } from './support.js';

// QA pass: a soak-test consumer of `watch --format ndjson` must hear of one
// stranded server request once. Repro with the CLI: feed samples/writers.ndjson
// lines 1-12 to `watch --format ndjson FILE`, append lines 13-20 one by one:
// orphaned-request for req-43 is printed at 10:00:02.500Z ("still unanswered
// when the log ends", after the 5 s settle) and printed AGAIN at 10:05:02.500Z
// when the request.timed_out line arrives ("it timed out ... unanswered"),
// because the finding's `at` is part of its identity and moves to the timeout.
// `analyze` on the whole file reports one orphaned-request.

const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

function lines(text: string, firstLine: number): InputLine[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((t, i) => ({ line: firstLine + i, text: t }));
}

describe('watch: an orphaned request is announced once', () => {
  // Was a bug: orphaned-request is announced a second time when its request.timed_out line arrives (its `at` moves).
  it('a settled orphaned-request is not announced again when the request later times out', () => {
    let now = 0;
    const db = openDb(':memory:');
    dbs.push(db);
    const live = new LiveSession(db, { now: () => now, settleMs: 1000 });
    const opening =
      healthyLines('S1') +
      rec(3, { kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage' }) +
      rec(4, { kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' });
    live.addLines('app.ndjson', lines(opening, 1));
    const announced = [...live.detect().fresh];
    now = 2000; // the finding has stood past the settle period: it is printed
    announced.push(...live.settle());
    expect(announced.filter((f) => f.rule === 'orphaned-request')).toHaveLength(1);

    // Later the server gives up on the request: the same stranded request, now timed out.
    live.addLines('app.ndjson', lines(rec(300_000, { kind: 'request.timed_out', session: 'S1', request_id: 'r1' }), 6));
    announced.push(...live.detect().fresh);
    now = 10_000;
    announced.push(...live.settle(), ...live.settle(true));

    expect(live.book.all().filter((f) => f.rule === 'orphaned-request')).toHaveLength(1);
    expect(announced.filter((f) => f.rule === 'orphaned-request')).toHaveLength(1);
  });
});
