import { describe, expect, it } from 'vitest';
import { analyzeLines, at, findingsOf } from '../helpers/logs.js';
import { T0, ingestFiles, ingestLines, rows } from './support.js';

// log-format.md: "within one node, records are ordered by seq where present
// (millisecond timestamps tie often)". A node may write two files that share
// its seq counter (a rotated log, one file per subsystem).

const rec = (kind: string, session: string, seq: number | undefined, node = 'n1') => ({ ts: T0, kind, session, node, ...(seq !== undefined && { seq }) });

describe('ties across files of one node', () => {
  it('are put in seq order, whichever file each record came from', async () => {
    const { db } = await ingestFiles({
      'a.ndjson': [rec('session.created', 'S1', 3), rec('session.created', 'S2', 1)],
      'b.ndjson': [rec('session.created', 'S3', 2), rec('session.created', 'S4', 4)],
    });
    expect(rows(db, 'SELECT session, seq FROM records ORDER BY ts_ms, id')).toEqual([
      { session: 'S2', seq: 1 },
      { session: 'S3', seq: 2 },
      { session: 'S1', seq: 3 },
      { session: 'S4', seq: 4 },
    ]);
    // Each record keeps its own file and line: evidence still points at the right line.
    expect(rows(db, "SELECT s.name AS file, r.line FROM records r JOIN sources s ON s.id = r.source_id WHERE r.session = 'S3'")).toEqual([
      { file: 'b.ndjson', line: 1 },
    ]);
  });

  it('leave other nodes and records without seq where the files had them', async () => {
    const { db } = await ingestFiles({
      'a.ndjson': [rec('session.created', 'S1', 2), rec('session.created', 'X1', undefined), rec('session.created', 'O1', 9, 'n2')],
      'b.ndjson': [rec('session.created', 'S2', 1), rec('session.created', 'O2', 1, 'n2')],
    });
    expect(rows(db, 'SELECT session FROM records ORDER BY ts_ms, id').map((r) => (r as { session: string }).session)).toEqual(['S2', 'X1', 'O2', 'S1', 'O1']);
  });
});

// `zcat -f app.log* | resumescope analyze -`: the shell's glob gives a rotated log's generations newest
// first, so one file holds a node's records with its times going back at each generation's start, and two
// records of one millisecond can lie apart in it, not in one run.
describe('ties apart in one file of one node', () => {
  const at2 = (kind: string, session: string, seq: number | undefined, node = 'n1') => ({ ...rec(kind, session, seq, node), ts: at(2000) });
  const earlier = (session: string, seq: number) => ({ ...rec('session.created', session, seq), ts: at(1000) });
  const sessionOrder = (db: Parameters<typeof rows>[0]) => rows<{ session: string }>(db, 'SELECT session FROM records ORDER BY ts_ms, id').map((r) => r.session);

  it('are put in seq order, each record keeping its line', async () => {
    const { db } = await ingestLines([at2('session.created', 'LATE', 5), earlier('E', 3), at2('session.created', 'FIRST', 4)]);
    expect(sessionOrder(db)).toEqual(['E', 'FIRST', 'LATE']);
    expect(rows(db, "SELECT line FROM records WHERE session = 'FIRST'")).toEqual([{ line: 3 }]);
  });

  it('near miss: records without seq, and other nodes\' records, keep file order', async () => {
    const { db } = await ingestLines([
      at2('session.created', 'X2', undefined), at2('session.created', 'O9', 9, 'n2'),
      earlier('E', 3),
      at2('session.created', 'X1', undefined), at2('session.created', 'P1', 1, 'n3'),
    ]);
    expect(sessionOrder(db)).toEqual(['E', 'X2', 'O9', 'X1', 'P1']);
  });

  // The reviewer's rot_seq log, concatenated newest generation first: the close (seq 4) came before the
  // upgrade that superseded its stream (seq 5), in the same millisecond.
  const rotatedNewestFirst = (closeSeq: number, upgradeSeq: number) => {
    const line = (ms: number, kind: string, seq: number, fields: Record<string, unknown>) => ({ ts: at(ms), kind, session: 'S-1', node: 'node-a', seq, ...fields });
    return [
      line(2000, 'upgrade', upgradeSeq, { last_event_id: 2, stream: 'U1', new_stream: 'U2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, conn: 'c2' }),
      line(2001, 'stream.opened', 6, { stream: 'U2', via: 'get', conn: 'c2' }),
      line(200, 'event.sent', 3, { stream: 'U1', event_id: 2 }),
      line(2000, 'stream.closed', closeSeq, { stream: 'U1', reason: 'error' }),
      line(0, 'session.created', 0, { principal: 'tok:a' }),
      line(10, 'stream.opened', 1, { stream: 'U1', via: 'get', conn: 'c1' }),
      line(100, 'event.sent', 2, { stream: 'U1', event_id: 1 }),
    ];
  };

  it('a rotated log concatenated newest first: seq shows the stream closed before it was superseded', async () => {
    expect(findingsOf(await analyzeLines(rotatedNewestFirst(4, 5)), 'dual-writer')).toEqual([]);
  });

  it('near miss: where seq says the upgrade came first, the dual-writer stands', async () => {
    const [f, ...rest] = findingsOf(await analyzeLines(rotatedNewestFirst(5, 4)), 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('took over from U1 while U1 was neither closed nor fenced');
  });
});
