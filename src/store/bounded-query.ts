import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { DERIVED_VIEWS_SQL } from './views.js';

/** How much one query may return and how long it may run before it is stopped. */
export interface QueryCaps {
  maxRows: number;
  timeoutMs: number;
}

export const DEFAULT_CAPS: QueryCaps = { maxRows: 10_000, timeoutMs: 10_000 };

export type Row = Record<string, unknown>;

/** Where a statement's answer goes: its column names (known even when it returns no rows) first, then its rows, batch by batch. */
export interface RowSink {
  columns(names: string[]): void;
  rows(batch: Row[]): void;
}

/** The query was stopped at a cap: `rows` when it returned more than maxRows, `time` past timeoutMs. */
export class QueryStopped extends Error {
  constructor(
    readonly cap: 'rows' | 'time',
    readonly caps: QueryCaps,
    /** Rows received before it was stopped. */
    readonly rowsSoFar: number,
  ) {
    super(cap === 'rows' ? `query returned more than ${caps.maxRows} rows` : `query ran longer than ${caps.timeoutMs} ms`);
  }
}

/** SQLite refused or failed the statement (the message is SQLite's). */
export class QueryFailed extends Error {}

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** How often the child looks whether its parent is still there. */
const ORPHAN_CHECK_MS = 250;

/** Rows per IPC message: few messages, none large. */
const BATCH = 500;

// The child: plain CommonJS run with `node -e`, so it is the same from src/ and
// dist/ and needs no build step. It opens the file read-only, with the derived
// TEMP views every connection gets, runs the statement and streams its rows.
const CHILD = `
const Database = require(process.argv[1]);
const { Worker } = require('node:worker_threads');
// A watchdog thread: this one may be busy in SQLite for hours, deaf to everything
// but SIGKILL, so another thread sends it when the parent goes away unannounced.
new Worker(${JSON.stringify(`
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL'); }, ${ORPHAN_CHECK_MS});
`)}, { eval: true }).unref();
process.once('message', (job) => {
  let db, it, last;
  try {
    db = new Database(job.file, { readonly: true, fileMustExist: true });
    db.exec(job.setup);
    // A staged query's TEMP tables (store/queries.ts): a read-only connection may write its temp schema.
    for (const stage of job.stages) db.prepare(stage.sql).run(stage.params);
    for (const table of job.tables) db.exec('ANALYZE temp.' + table);
    // Rows as arrays, column names once: half the bytes, half the serialization time of objects.
    // Integers as BigInt: a 64-bit id (a snowflake) past 2^53 would otherwise come back rounded.
    const stmt = db.prepare(job.sql).raw(true).safeIntegers(true);
    process.send({ t: 'ready', columns: stmt.columns().map((c) => c.name) });
    let batch = [], n = 0;
    it = stmt.iterate(job.params);
    for (const row of it) {
      if (n === job.maxRows) { last = { t: 'too-many' }; break; }
      batch.push(row);
      n++;
      if (batch.length === ${BATCH}) { process.send({ t: 'rows', rows: batch }); batch = []; }
    }
    if (!last) { process.send({ t: 'rows', rows: batch }); last = { t: 'done' }; }
  } catch (err) {
    last = { t: 'error', message: String((err && err.message) || err) };
  } finally {
    if (it) it.return();
    if (db) db.close();
  }
  // Disconnect once the last message is written, not before: a closed channel drops what is queued.
  process.send(last, () => process.disconnect());
});
`;

type Message = { t: 'ready'; columns: string[] } | { t: 'rows'; rows: unknown[][] } | { t: 'too-many' } | { t: 'done' } | { t: 'error'; message: string };

/**
 * Runs one read-only statement on a database file in a child process, and
 * kills it at the time limit. better-sqlite3 exposes neither sqlite3_interrupt
 * nor a progress handler, so a statement that computes before its first row
 * (an aggregate over a cartesian product) cannot be stopped from inside the
 * process, and a worker thread busy in SQLite ignores terminate() (and then
 * holds up the process's exit). A killed process stops.
 *
 * The process starts when this is constructed, so that it boots while the
 * caller ingests; run() gives it its one statement. The clock starts when the
 * child has opened the file and prepared the statement, so a slow start on a
 * loaded machine is not counted against the query; the start itself is bounded
 * by the same limit.
 */
export class QueryProcess {
  private readonly child: ChildProcess;
  private stderr = '';
  private ended: Error | undefined;
  private onEnd: ((err: Error) => void) | undefined;
  private readonly kill = () => void this.child.kill('SIGKILL');

  constructor() {
    this.child = spawn(process.execPath, ['-e', CHILD, BETTER_SQLITE3], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced', // Buffers (BLOB columns) arrive as Buffers, as in-process
    });
    process.once('exit', this.kill);
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => void (this.stderr = (this.stderr + s).slice(-2000)));
    const end = (err: Error) => {
      process.off('exit', this.kill);
      this.ended ??= err;
      this.onEnd?.(this.ended);
    };
    this.child.on('error', (err) => end(new Error(`cannot start the query process: ${err.message}`)));
    // 'close', not 'exit': it comes after the IPC channel has delivered every message.
    this.child.on('close', (code, signal) => {
      end(new Error(`the query process ended before its answer (${signal ?? `exit ${code}`})${this.stderr ? `: ${this.stderr.trim()}` : ''}`));
    });
  }

  /**
   * Runs `sql` on the database file `file`, after the stages that build its TEMP tables; one query per
   * process. Rows go to `sink` batch by batch as the child sends them, never all held here; resolves
   * with the number of rows once the answer is whole.
   */
  run(file: string, sql: string, params: Record<string, unknown>, caps: QueryCaps, sink: RowSink, staged: Staged = NOT_STAGED): Promise<number> {
    return new Promise((resolve, reject) => {
      let rows = 0;
      let columns: string[] = [];
      let settled = false;
      const settle = (err: Error | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.close();
        if (err) reject(err);
        else resolve(rows);
      };
      if (this.ended) return settle(this.ended);
      this.onEnd = settle;
      const stopAtLimit = () => setTimeout(() => settle(new QueryStopped('time', caps, rows)), caps.timeoutMs);
      let timer = stopAtLimit();
      this.child.on('message', (m: Message) => {
        if (settled) return;
        if (m.t === 'ready') {
          columns = m.columns;
          sink.columns(columns);
          clearTimeout(timer);
          timer = stopAtLimit();
        } else if (m.t === 'rows') {
          rows += m.rows.length;
          try {
            sink.rows(m.rows.map((values) => asObject(columns, values)));
          } catch (err) {
            settle(err as Error);
          }
        } else if (m.t === 'too-many') settle(new QueryStopped('rows', caps, rows));
        else if (m.t === 'error') settle(new QueryFailed(m.message));
        else settle(undefined);
      });
      this.child.send({ file, setup: DERIVED_VIEWS_SQL, ...staged, sql, params, maxRows: caps.maxRows });
    });
  }

  /** Stops the process if it still runs (a query stopped at a cap, or never given). */
  close(): void {
    process.off('exit', this.kill);
    if (this.child.exitCode === null && this.child.signalCode === null) this.kill();
  }
}

/** What a staged query builds before its answer (store/queries.ts, queryParts), with each stage's parameters. */
export interface Staged {
  stages: { sql: string; params: Record<string, unknown> }[];
  tables: string[];
}

const NOT_STAGED: Staged = { stages: [], tables: [] };

/** A raw row as better-sqlite3 gives it in-process: a column name given twice keeps its last value. */
function asObject(columns: string[], values: unknown[]): Row {
  const row: Row = {};
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
  return row;
}
