import type { Db } from '../store/db.js';

// Lookups the scoped detection needs on every round that the store has no
// index for: tool calls by tool and arguments and by principal, and the
// sessions that opened a stream on a connection. Kept in memory and fed by
// rowid, since live mode only ever appends records.

export interface CallSighting {
  id: number;
  session: string;
  ts: number;
  /** The tool and its arguments' hash, as one key. */
  call: string;
}

export class ContextIndex {
  private upTo = 0;
  private readonly calls = new Map<string, CallsByTime>();
  private readonly principalCalls = new Map<string, CallsByTime>();
  private readonly principals = new Map<string, Set<string>>();
  private readonly conns = new Map<string, Set<string>>();
  /** Event ids reconnects named that no emission of their own session placed: id → session → the latest such reconnect's time. */
  private readonly unplaced = new Map<string, Map<string, number>>();
  private readonly newCalls;
  private readonly newPrincipals;
  private readonly newStreams;
  private readonly maxId;

  constructor(db: Db) {
    this.newCalls = db.prepare(
      "SELECT id, session, ts_ms, tool, args_hash, principal FROM records WHERE id > ? AND +kind = 'call' AND session IS NOT NULL AND tool IS NOT NULL AND args_hash IS NOT NULL",
    );
    this.newPrincipals = db.prepare('SELECT DISTINCT session, principal FROM records WHERE id > ? AND session IS NOT NULL AND principal IS NOT NULL');
    this.newStreams = db.prepare(
      "SELECT session, conn FROM records WHERE id > ? AND +kind = 'stream.opened' AND session IS NOT NULL AND conn IS NOT NULL AND principal IS NOT NULL",
    );
    this.maxId = db.prepare('SELECT coalesce(max(id), 0) FROM records').pluck();
  }

  /** Takes in the records stored since the last update. */
  update(): void {
    const from = this.upTo;
    this.upTo = this.maxId.get() as number;
    // The principals first: a call that names none is its session's principals'.
    for (const r of this.newPrincipals.iterate(from) as Iterable<{ session: string; principal: string }>) setOf(this.principals, r.session).add(r.principal);
    type CallRow = { id: number; session: string; ts_ms: number; tool: string; args_hash: string; principal: string | null };
    for (const c of this.newCalls.iterate(from) as Iterable<CallRow>) {
      const same = listOf(this.calls, `${c.tool}\0${c.args_hash}`);
      // (the list's own key: one string per call, not per sighting)
      const sighting: CallSighting = { id: c.id, session: c.session, ts: c.ts_ms, call: same.key };
      same.add(sighting);
      for (const p of c.principal !== null ? [c.principal] : this.principalsOf(c.session)) listOf(this.principalCalls, p).add(sighting);
    }
    for (const s of this.newStreams.iterate(from) as Iterable<{ session: string; conn: string }>) setOf(this.conns, s.conn).add(s.session);
  }

  /** Other executions of the same tool with the same arguments between lo and hi (log time). */
  sameCalls(tool: string, argsHash: string, lo: number, hi: number, exceptId: number): CallSighting[] {
    return this.twins(`${tool}\0${argsHash}`, lo, hi, exceptId);
  }

  /** Other executions of this call (CallSighting.call) between lo and hi. */
  twins(call: string, lo: number, hi: number, exceptId: number): CallSighting[] {
    return (this.calls.get(call)?.between(lo, hi) ?? []).filter((c) => c.id !== exceptId);
  }

  /** Whether another execution of this call was made between lo and hi. */
  hasTwin(call: string, lo: number, hi: number, exceptId: number): boolean {
    return this.calls.get(call)?.some(lo, hi, (c) => c.id !== exceptId) ?? false;
  }

  /** The tool calls made for this principal between lo and hi (a call naming none is its session's principals'). */
  callsOf(principal: string, lo: number, hi: number): CallSighting[] {
    return this.principalCalls.get(principal)?.between(lo, hi) ?? [];
  }

  /** The principals a session's records name. */
  principalsOf(session: string): Iterable<string> {
    return this.principals.get(session) ?? [];
  }

  /** A reconnect of `session` at `ts` named `eventId`, which the session had not sent by then. */
  noteUnplaced(eventId: string, session: string, ts: number): void {
    let sessions = this.unplaced.get(eventId);
    if (sessions === undefined) this.unplaced.set(eventId, (sessions = new Map()));
    sessions.set(session, Math.max(sessions.get(session) ?? ts, ts));
  }

  /** The sessions whose reconnects named this id unplaced, each with the latest such reconnect's time. */
  unplacedOf(eventId: string): ReadonlyMap<string, number> | undefined {
    return this.unplaced.get(eventId);
  }

  /** Sessions that opened a stream, with a principal, on this connection. */
  sessionsOnConn(conn: string): Iterable<string> {
    return this.conns.get(conn) ?? [];
  }
}

/**
 * Sightings in time order, so that a window is found by bisection: filtered whole, one principal's
 * calls over a long tail cost each round the whole history. A live log comes mostly in time order, so
 * a sighting is nearly always appended.
 */
class CallsByTime {
  private readonly items: CallSighting[] = [];

  constructor(readonly key: string) {}

  add(c: CallSighting): void {
    let i = this.items.length;
    while (i > 0 && this.items[i - 1]!.ts > c.ts) i--;
    this.items.splice(i, 0, c);
  }

  between(lo: number, hi: number): CallSighting[] {
    const out: CallSighting[] = [];
    for (let i = this.first(lo); i < this.items.length && this.items[i]!.ts <= hi; i++) out.push(this.items[i]!);
    return out;
  }

  some(lo: number, hi: number, test: (c: CallSighting) => boolean): boolean {
    for (let i = this.first(lo); i < this.items.length && this.items[i]!.ts <= hi; i++) if (test(this.items[i]!)) return true;
    return false;
  }

  /** The first position at or after `lo`. */
  private first(lo: number): number {
    let a = 0;
    let b = this.items.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (this.items[m]!.ts < lo) a = m + 1;
      else b = m;
    }
    return a;
  }
}

function listOf(map: Map<string, CallsByTime>, key: string): CallsByTime {
  let list = map.get(key);
  if (list === undefined) map.set(key, (list = new CallsByTime(key)));
  return list;
}

function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  return set;
}
