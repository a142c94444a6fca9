import type { Db } from '../store/db.js';

// Lookups the scoped detection needs on every round that the store has no
// index for: tool calls by tool and arguments, and the sessions that opened a
// stream on a connection. Kept in memory and fed by rowid, since live mode
// only ever appends records.

export interface CallSighting {
  id: number;
  session: string;
  ts: number;
}

export class ContextIndex {
  private upTo = 0;
  private readonly calls = new Map<string, CallSighting[]>();
  private readonly conns = new Map<string, Set<string>>();
  private readonly newCalls;
  private readonly newStreams;

  constructor(db: Db) {
    this.newCalls = db.prepare(
      "SELECT id, session, ts_ms, tool, args_hash FROM records WHERE id > ? AND +kind = 'call' AND session IS NOT NULL AND tool IS NOT NULL AND args_hash IS NOT NULL",
    );
    this.newStreams = db.prepare(
      "SELECT session, conn FROM records WHERE id > ? AND +kind = 'stream.opened' AND session IS NOT NULL AND conn IS NOT NULL AND principal IS NOT NULL",
    );
    this.maxId = db.prepare('SELECT coalesce(max(id), 0) FROM records').pluck();
  }

  private readonly maxId;

  /** Takes in the records stored since the last update. */
  update(): void {
    const from = this.upTo;
    this.upTo = this.maxId.get() as number;
    for (const c of this.newCalls.iterate(from) as Iterable<{ id: number; session: string; ts_ms: number; tool: string; args_hash: string }>) {
      const key = `${c.tool}\0${c.args_hash}`;
      const list = this.calls.get(key) ?? [];
      list.push({ id: c.id, session: c.session, ts: c.ts_ms });
      this.calls.set(key, list);
    }
    for (const s of this.newStreams.iterate(from) as Iterable<{ session: string; conn: string }>) {
      const set = this.conns.get(s.conn) ?? new Set<string>();
      set.add(s.session);
      this.conns.set(s.conn, set);
    }
  }

  /** Other executions of the same tool with the same arguments between lo and hi (log time). */
  sameCalls(tool: string, argsHash: string, lo: number, hi: number, exceptId: number): CallSighting[] {
    return (this.calls.get(`${tool}\0${argsHash}`) ?? []).filter((c) => c.id !== exceptId && c.ts >= lo && c.ts <= hi);
  }

  /** Sessions that opened a stream, with a principal, on this connection. */
  sessionsOnConn(conn: string): Iterable<string> {
    return this.conns.get(conn) ?? [];
  }
}
