import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions } from '../../detect/types.js';
import { listQueries, loadQuery, QUERIES_DIR } from '../../detect/sql.js';
import { deriveTimeline } from '../../store/derive.js';
import { isLocked, type Db } from '../../store/db.js';
import { renderRows } from '../../render/rows.js';
import { UsageError, type Io } from '../io.js';
import { addInputOptions, addThresholdOptions, detectOptions, loadConfig, type ThresholdFlags } from '../options.js';
import { resolveEvidence } from '../../detect/evidence.js';
import { isoTime } from '../../normalize/time.js';
import { openWorkspace, type InputOptions } from '../workspace.js';

export function registerQuery(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('query')
    .description('read-only SQL over the timeline, or a named query from queries/ (--list)')
    .argument('[sql]', 'SQL text, or the name of a query in queries/ (e.g. rejected)')
    .argument('[paths...]', 'log files, folders, or - for stdin');
  addInputOptions(cmd);
  addThresholdOptions(cmd)
    .option('--list', 'list the named queries')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json', 'csv']).default('table'))
    .action(async (sql: string | undefined, paths: string[], flags: InputOptions & ThresholdFlags & { list?: boolean; format: string }) => {
      if (flags.list) {
        for (const q of listQueries().filter((q) => unboundParams(loadQuery(q.name)).length === 0)) {
          io.out(`${q.name.padEnd(32)} ${q.title}\n`);
        }
        return done(0);
      }
      if (sql === undefined) throw new UsageError('give SQL or a query name (resumescope query --list)');
      const named = existsSync(`${QUERIES_DIR}${sql}.sql`);
      // A bare word is a query name, never SQL: say so rather than report a syntax error.
      if (!named && /^[a-z0-9][a-z0-9-]*$/i.test(sql) && !/^(select|with|values|explain|pragma)$/i.test(sql)) {
        throw new UsageError(`no named query "${sql}" (see resumescope query --list)`);
      }
      const text = named ? loadQuery(sql) : sql;
      const unbound = named ? unboundParams(text) : [];
      if (unbound.length > 0) {
        // An internal fact query the detectors run with their own arguments: not a user query.
        throw new UsageError(`"${sql}" is an internal query the detectors run with :${unbound.join(', :')}; it cannot be run on its own (see resumescope query --list)`);
      }
      const ws = await openWorkspace(paths, flags, io);
      try {
        deriveOrAnswerFromCommitted(ws.db, io);
        // The detectors' queries take the same thresholds analyze runs with (flags, then the config file).
        const rows = readable(ws.db, runReadOnly(ws.db, text, { ...DEFAULT_DETECT_OPTIONS, ...defined(detectOptions(flags, loadConfig(flags.config))) }));
        io.out(renderRows(rows, flags.format as 'table' | 'json' | 'csv'));
        done(ws.unusable ? 2 : 0);
      } finally {
        ws.db.close();
      }
    });
}

/** Runs one statement that does not write; the detectors' named parameters get the given thresholds. */
export function runReadOnly(db: Db, sql: string, d: DetectOptions = DEFAULT_DETECT_OPTIONS): Record<string, unknown>[] {
  let stmt;
  try {
    stmt = db.prepare(sql);
  } catch (err) {
    throw new UsageError(`SQL: ${(err as Error).message}`);
  }
  if (!stmt.readonly) throw new UsageError('query refused: it would write to the database (query is read-only)');
  if (!stmt.reader) throw new UsageError('query refused: it returns no rows (only SELECT-like statements are run)');
  const defaults = thresholdParams(d);
  const used = new Set(paramsOf(sql));
  const params = Object.fromEntries(Object.entries(defaults).filter(([k]) => used.has(k)));
  try {
    return stmt.all(params) as Record<string, unknown>[];
  } catch (err) {
    throw new UsageError(`SQL: ${(err as Error).message}`);
  }
}

function thresholdParams(d: DetectOptions): Record<string, number> {
  return {
    storm_count: d.stormCount,
    storm_window_ms: d.stormWindowMs,
    duplicate_call_window_ms: d.duplicateCallWindowMs,
    fence_grace_ms: d.fenceGraceMs,
  };
}

/** Named parameters of a statement, comments left out (a `--` line may mention `:x`). */
function paramsOf(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, '');
  return [...new Set(code.match(/[:@$][a-z_]+/g)?.map((p) => p.slice(1)) ?? [])];
}

/** The parameters query cannot bind: only the thresholds analyze runs with are bound. */
export function unboundParams(sql: string): string[] {
  const bound = thresholdParams(DEFAULT_DETECT_OPTIONS);
  return paramsOf(sql).filter((p) => !(p in bound));
}

/**
 * query reads; it derives only what its own ingest left to derive. When
 * another process holds the write lock (an ingest still deriving), answer from
 * what is committed rather than fail.
 */
function deriveOrAnswerFromCommitted(db: Db, io: Io): void {
  try {
    deriveTimeline(db);
  } catch (err) {
    if (!isLocked(err)) throw err;
    io.err(`resumescope: ${db.name} is being written by another process: answering from what it has committed (derived tables may lag)\n`);
  }
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Rows as a person reads them: an `at_ms` column gains an `at` time beside it,
 * and an `evidence` column of record ids becomes the file:line it names.
 */
export function readable(db: Db, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const evidence = (v: unknown): number[] | undefined => {
    if (typeof v !== 'string' || !v.startsWith('[')) return undefined;
    try {
      const ids = JSON.parse(v) as unknown[];
      return ids.every((x) => typeof x === 'number' || x === null) ? (ids.filter((x) => x !== null) as number[]) : undefined;
    } catch {
      return undefined;
    }
  };
  const refs = resolveEvidence(db, rows.flatMap((r) => evidence(r.evidence) ?? []));
  return rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) {
      if (k === 'at_ms' && typeof v === 'number') out.at = isoTime(v);
      const ids = k === 'evidence' ? evidence(v) : undefined;
      out[k] = ids ? ids.map((id) => refs.get(id)).filter((x) => x !== undefined).map((x) => `${x.ref.file}:${x.ref.line}`).join(' ') : v;
    }
    return out;
  });
}
