import { describe, expect, it } from 'vitest';
import { T0, ingestFiles, rows } from './support.js';

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
