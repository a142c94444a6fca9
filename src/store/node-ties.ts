import type { Db } from './db.js';

/**
 * log-format.md: within one node, records are ordered by `seq` where present.
 * Ingest puts a node's ties in seq order within one run of equal times in one
 * file; ties it cannot see there stay in file order: two files of one node (a
 * rotated log, or one file per subsystem) that share its seq counter, and one
 * file whose times go back (`zcat -f app.log*`: the generations newest first),
 * where a node's tied records lie apart. Where id order (the order of equal
 * times everywhere) goes against seq, the node's tied records trade ids so that
 * it follows seq, in the places they held; other nodes' records and those
 * without seq stay put. Call after the files are ingested, before derive;
 * returns how many moved.
 */
export function interleaveNodeTies(db: Db, nodes: ReadonlySet<string>): number {
  if (nodes.size === 0) return 0;
  // One sort of the nodes' seq records: a tie whose seq falls somewhere in id order, with all its records.
  const rows = db
    .prepare(
      `SELECT id, ts_ms, node, seq, session FROM (
         SELECT *, max(falls) OVER (PARTITION BY ts_ms, node) AS unsorted FROM (
           SELECT id, ts_ms, node, seq, session, coalesce(seq < lag(seq) OVER (PARTITION BY ts_ms, node ORDER BY id), 0) AS falls
           FROM records WHERE seq IS NOT NULL AND node IN (SELECT value FROM json_each(?))))
       WHERE unsorted ORDER BY ts_ms, node, id`,
    )
    .all(JSON.stringify([...nodes])) as TiedRecord[];
  const park = db.prepare('UPDATE records SET id = -id WHERE id = ?');
  const place = db.prepare('UPDATE records SET id = ? WHERE id = ?');
  const touched = new Set<string>();
  let moved = 0;
  for (let start = 0; start < rows.length; ) {
    let end = start + 1;
    while (end < rows.length && rows[end]!.ts_ms === rows[start]!.ts_ms && rows[end]!.node === rows[start]!.node) end++;
    const tie = rows.slice(start, end);
    start = end;
    const bySeq = tie.slice().sort((a, b) => a.seq - b.seq || a.id - b.id);
    const moves = bySeq.map((r, k) => ({ from: r.id, to: tie[k]!.id, session: r.session })).filter((m) => m.from !== m.to);
    for (const m of moves) park.run(m.from);
    for (const m of moves) {
      place.run(m.to, -m.from);
      if (m.session !== null) touched.add(m.session);
    }
    moved += moves.length;
  }
  const dirty = db.prepare('INSERT OR IGNORE INTO dirty_sessions (session) VALUES (?)');
  for (const session of touched) dirty.run(session);
  return moved;
}

interface TiedRecord {
  id: number;
  ts_ms: number;
  node: string;
  seq: number;
  session: string | null;
}
