import type { Db } from './db.js';

/**
 * log-format.md: within one node, records are ordered by `seq` where present.
 * Ingest puts a node's ties in seq order within one file; two files of one node
 * (a rotated log, or one file per subsystem) that share its seq counter can tie
 * too, and ids follow file order. Where they do, the node's tied records trade
 * ids so that id order (the order of equal times everywhere) follows seq, in
 * the places they held; other nodes' records and those without seq stay put.
 * Call after the files are ingested, before derive; returns how many moved.
 */
export function interleaveNodeTies(db: Db, nodes: ReadonlySet<string>): number {
  if (nodes.size === 0) return 0;
  const groups = db
    .prepare(
      `SELECT ts_ms, node FROM records
       WHERE seq IS NOT NULL AND node IN (SELECT value FROM json_each(?))
       GROUP BY ts_ms, node HAVING count(DISTINCT source_id) > 1`,
    )
    .all(JSON.stringify([...nodes])) as { ts_ms: number; node: string }[];
  const members = db.prepare('SELECT id, seq, session FROM records WHERE ts_ms = ? AND node = ? AND seq IS NOT NULL ORDER BY id');
  const park = db.prepare('UPDATE records SET id = -id WHERE id = ?');
  const place = db.prepare('UPDATE records SET id = ? WHERE id = ?');
  const touched = new Set<string>();
  let moved = 0;
  for (const g of groups) {
    const rows = members.all(g.ts_ms, g.node) as { id: number; seq: number; session: string | null }[];
    const bySeq = rows.slice().sort((a, b) => a.seq - b.seq || a.id - b.id);
    const moves = bySeq.map((r, k) => ({ from: r.id, to: rows[k]!.id, session: r.session })).filter((m) => m.from !== m.to);
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
