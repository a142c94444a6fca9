import type { Db } from './db.js';
import type { Param, RowShape } from './insert.js';

// Counted while a source's records are written (source-sink.ts), so that summary.nodes and
// lost-sessions.sql read a row per node and source instead of every record again.

/** Each node's records of one source, and its last server record by time (schema.ts, node_records). */
export class NodeTally {
  private readonly byNode = new Map<string | null, { records: number; lastMs: number | null; lastId: number | null }>();

  add(shape: RowShape, p: Param[], id: number): void {
    const node = shape.node < 0 ? null : (p[shape.node] as string | null);
    let t = this.byNode.get(node);
    if (t === undefined) this.byNode.set(node, (t = { records: 0, lastMs: null, lastId: null }));
    const server = p[shape.origin] === 'server';
    // summary.nodes counts the input's records: what a proxy's http record says is inferred, not input
    if (server || (shape.kind >= 0 && p[shape.kind] === 'http')) t.records++;
    const ts = p[shape.tsMs] as number;
    if (server && (t.lastMs === null || ts > t.lastMs || (ts === t.lastMs && id > t.lastId!))) {
      t.lastMs = ts;
      t.lastId = id;
    }
  }

  /** The source's rows, replaced: a live source saves after each batch. */
  save(db: Db, sourceId: number): void {
    db.prepare('DELETE FROM node_records WHERE source_id = ?').run(sourceId);
    const insert = db.prepare('INSERT INTO node_records (source_id, node, records, last_ms, last_id) VALUES (?, ?, ?, ?, ?)');
    for (const [node, t] of this.byNode) insert.run(sourceId, node, t.records, t.lastMs, t.lastId);
  }
}
