import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { sessionFolder, type FoldRecord, type SessionFold, type SessionFolder, type StreamedFold } from './fold-session.js';
import { collectGarbage } from './heap.js';
import { sparseColumnsJson } from './sparse-columns.js';

// The dirty sessions derive folds, in chunks each read in fold order and folded
// as its records come; either thread of a derive may fold a chunk, and both see
// the same chunks (derive-threads.ts). derive.ts writes what they fold.

/** Columns most records set, read one by one. */
const DENSE = ['session', 'id', 'ts_ms', 'kind', 'node', 'stream', 'event_id', 'rpc_kind', 'rpc_id', 'method', 'status', 'request_id'] as const;
/** Columns few records set (upgrades, creations, stream opens), as one value (1M production records: 2.4 s for all 25 columns one by one). */
const SPARSE = [
  'principal', 'incarnation', 'sequence', 'conn', 'via', 'reason', 'log_evicted', 'attached', 'last_event_id', 'new_stream', 'decision',
  'new_request_id', 'new_session',
] as const;
const FOLD_COLUMNS =
  `${DENSE.map((c) => `r.${c}`).join(', ')}, ` +
  `${sparseColumnsJson(SPARSE, 'r.')} AS sparse`;
/** Where the fold's session comes after FOLD_COLUMNS. */
const FOLD_SESSION = DENSE.length + 1;
const NO_SPARSE: readonly Cell[] = SPARSE.map(() => null);

type Cell = string | number | null;

// better-sqlite3 builds a row object column by column, which costs more than
// the read itself; raw rows made into one object shape here cost a fraction.
function foldRecord(c: Cell[]): FoldRecord {
  const x = typeof c[12] === 'string' ? (JSON.parse(c[12]) as Cell[]) : NO_SPARSE;
  return {
    id: c[1] as number, ts_ms: c[2] as number, kind: c[3] as string, node: c[4] as string | null, principal: x[0] as string | null,
    incarnation: x[1] as string | null, stream: c[5] as string | null, sequence: x[2] as string | null, conn: x[3] as string | null,
    via: x[4] as string | null, reason: x[5] as string | null, log_evicted: x[6] as number | null, event_id: c[6] as string | null,
    rpc_kind: c[7] as string | null, rpc_id: c[8] as string | null, method: c[9] as string | null, attached: x[7] as number | null,
    last_event_id: x[8] as string | null, new_stream: x[9] as string | null, decision: x[10] as string | null,
    status: c[10] as number | null, request_id: c[11] as string | null, new_request_id: x[11] as string | null,
    session: c[0] as string | null, new_session: x[12] as string | null,
  };
}

/**
 * Dirty sessions are read this many at a time: whole sessions, bounded memory. Each chunk's rows and
 * folds are garbage as soon as they are written, but on two threads up to MAX_CHUNKS_IN_FLIGHT of them
 * wait to be, and V8 lets that garbage pile up before it collects: at 3M production lines 256 sessions
 * a chunk peaked at 342 MB in derive, 32 at 213 MB, and 32 was no slower (1M: 5.2 s against 5.9 s).
 */
export const DERIVE_CHUNK_SESSIONS = 32;

/**
 * A chunk also ends before it would pass this many records (a session is never split: one longer
 * than this is a chunk of its own). Sessions hundreds of reconnects long hold thousands of records
 * each: 32 of them a chunk took derive of 1M such lines to 570 MB.
 */
export const DERIVE_CHUNK_RECORDS = 4096;

/**
 * A solo chunk's fold leaves its garbage (a session of 1M records: 170 MB) resident until V8 next collects its old
 * generation, which detect, or the next solo fold, then builds on. It is collected (store/heap.ts) before the next
 * solo fold and once derive is done, from where nothing on the stack still refers to it.
 */
export class SoloFoldGarbage {
  private owed = false;

  written(solo: boolean): void {
    this.owed ||= solo;
  }

  /** Collects what a solo fold left, if one did since the last call: call it before the next solo fold, and once derive is done. */
  settle(): void {
    if (this.owed) collectGarbage();
    this.owed = false;
  }
}

/**
 * The dirty sessions in chunks (DERIVE_CHUNK_SESSIONS, DERIVE_CHUNK_RECORDS), each folded on demand: `fold(i)` reads
 * and folds chunk i to its end before it returns (better-sqlite3 cannot write while a read is open), so the caller may
 * write between chunks. Two connections over the same committed records see the same chunks (store/derive-threads.ts).
 */
export function dirtySessionChunks(db: Db, soloRecords = SOLO_FOLD_RECORDS): {
  chunks: number;
  /** Chunk i is one session longer than `soloRecords`: folded by one thread at a time (derive-threads.ts). */
  solo(i: number): boolean;
  /** Chunk i folded whole, its event rows made (the worker's, which it sends). */
  fold(i: number): { folds: [string, SessionFold][]; records: number };
  /**
   * Chunk i folded for this connection to write: a solo chunk's event rows are made as they are written,
   * from its emissions read again (a session of 1M records: 538k events, held at once, with their emissions
   * before them), the others' as fold(i) makes them.
   */
  foldForWriting(i: number): [string, StreamedFold][];
} {
  const longest = new Set<string>();
  function* sizes(rows: IterableIterator<[string, number]>): Generator<[string, number]> {
    for (const row of rows) {
      if (row[1] > soloRecords) longest.add(row[0]);
      yield row;
    }
  }
  // Row by row: as one array, the 162k sessions of a folder of small logs cost both threads about 30 MB each.
  const chunks = chunkSessions(sizes(db.prepare(SESSION_SIZES).raw().iterate() as IterableIterator<[string, number]>));
  const reads = new Map<number, Statement>();
  const read = (n: number) => reads.get(n) ?? reads.set(n, db.prepare(foldReadSql(n)).raw()).get(n)!;
  /** Chunk i read and folded, each session finished by `finish` as soon as its last record is added. */
  const fold = <T>(i: number, keepEmissions: boolean, finish: (folder: SessionFolder, session: string) => T) => {
    const part = chunks[i]!;
    const folds: [string, T][] = [];
    let session: string | undefined;
    let folder: SessionFolder | undefined;
    let n = 0;
    // Row by row, each record folded as it comes: a session thousands of records long is never held whole.
    for (const row of read(part.length).iterate(...part, ...part) as IterableIterator<Cell[]>) {
      const s = row[FOLD_SESSION] as string;
      if (s !== session) {
        if (folder !== undefined) folds.push([session!, finish(folder, session!)]);
        session = s;
        folder = sessionFolder(s, { keepEmissions });
      }
      folder!.add(foldRecord(row));
      n++;
    }
    if (folder !== undefined) folds.push([session!, finish(folder, session!)]);
    return { folds, records: n };
  };
  const solo = (i: number) => chunks[i]!.length === 1 && longest.has(chunks[i]![0]!);
  const foldWhole = (i: number) => fold(i, true, (f): SessionFold => f.finish());
  return {
    chunks: chunks.length,
    solo,
    fold: foldWhole,
    foldForWriting(i) {
      if (!solo(i)) return foldWhole(i).folds;
      return fold(i, false, (f, s): StreamedFold => f.finishStreamed(emissionsOf(db, s))).folds;
    },
  };
}

/** Emissions read again a page at a time: the writes in between need no read open on the connection. */
const EMISSIONS_PAGE = 4096;

/** A session's records that may make event rows (fold-session.ts, isEmission), in fold order, read as they are iterated. */
function emissionsOf(db: Db, session: string): Iterable<FoldRecord> {
  const where = `r.session = ? AND r.shadowed = 0 AND r.kind IN ('event.sent', 'request.sent') AND r.event_id IS NOT NULL`;
  const first = db.prepare(`SELECT ${FOLD_COLUMNS} FROM records r WHERE ${where} ORDER BY r.ts_ms, r.id LIMIT ${EMISSIONS_PAGE}`).raw();
  const after = db.prepare(
    `SELECT ${FOLD_COLUMNS} FROM records r WHERE ${where} AND (r.ts_ms, r.id) > (?, ?) ORDER BY r.ts_ms, r.id LIMIT ${EMISSIONS_PAGE}`,
  ).raw();
  return {
    *[Symbol.iterator]() {
      let page = first.all(session) as Cell[][];
      while (page.length > 0) {
        for (const row of page) yield foldRecord(row);
        if (page.length < EMISSIONS_PAGE) return;
        const last = page[page.length - 1]!;
        page = after.all(session, last[2], last[1]) as Cell[][];
      }
    },
  };
}

/**
 * A session longer than this is folded by one thread at a time. Its fold holds the session's emissions and rows
 * (about 300 bytes a record at its peak): two folded at once, one on each thread, and the worker's copied to this
 * one, took derive of a log of 520k-line sessions (a soak test of one client) to 674 MB. Well above the longest
 * session of every other bench shape (polling: 85k records).
 */
export const SOLO_FOLD_RECORDS = 100_000;

/** Each dirty session and its records, in session order (counted on records_session, not read). */
const SESSION_SIZES = 'SELECT d.session, (SELECT count(*) FROM records r WHERE r.session = d.session) FROM dirty_sessions d ORDER BY d.session';

/** Sessions (in order, with their record counts) cut into chunks of at most DERIVE_CHUNK_SESSIONS sessions and DERIVE_CHUNK_RECORDS records. */
export function chunkSessions(sizes: Iterable<readonly [string, number]>): string[][] {
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let records = 0;
  for (const [session, n] of sizes) {
    if (chunk.length > 0 && (chunk.length === DERIVE_CHUNK_SESSIONS || records + n > DERIVE_CHUNK_RECORDS)) {
      chunks.push(chunk);
      chunk = [];
      records = 0;
    }
    chunk.push(session);
    records += n;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * The records of `n` sessions in fold order (one chunk of derive): by session, time, id.
 * An upgrade that mints a session is folded into the minted session too (its new stream is that one's).
 * `+r.kind`: with kind indexed, the planner otherwise walks every upgrade of the log once per chunk
 * instead of probing records_new_session (24 of 32 s of derive at 1M lines).
 */
export function foldReadSql(n: number): string {
  return `SELECT * FROM (
      SELECT ${FOLD_COLUMNS}, r.session AS fold_session FROM records r
      WHERE r.session IN (${'?,'.repeat(n - 1)}?) AND r.shadowed = 0
      UNION ALL
      SELECT ${FOLD_COLUMNS}, r.new_session AS fold_session FROM records r
      WHERE r.new_session IN (${'?,'.repeat(n - 1)}?) AND +r.kind = 'upgrade' AND r.shadowed = 0 AND r.session IS NOT r.new_session)
    ORDER BY fold_session, ts_ms, id`;
}
