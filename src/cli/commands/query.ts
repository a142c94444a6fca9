import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions } from '../../detect/types.js';
import { factsNaming, listQueries, loadQuery, queryParts, queryPath } from '../../store/queries.js';
import { isRuleId } from '../../detect/rules/index.js';
import { derive } from '../../pipeline/derived.js';
import { refreshStatistics } from '../../store/statistics.js';
import { isLocked, type Db } from '../../store/db.js';
import { DEFAULT_CAPS, QueryFailed, QueryProcess, QueryStopped, type QueryCaps, type RowSink } from '../../store/bounded-query.js';
import { openScratchDb } from '../../store/scratch-db.js';
import type { RowsFormat } from '../../render/rows.js';
import { readableRowsWriter } from '../../render/readable-rows.js';
import { schemaText } from '../../render/schema-text.js';
import { describeSchema, type SchemaTable } from '../../store/schema-docs.js';
import { openDb } from '../../store/db.js';
import { UsageError, type Io } from '../io.js';
import { addInputOptions, addThresholdOptions, detectOptions, duration, loadConfig, type SettingFlags } from '../options.js';
import { resolveEvidence } from '../../detect/evidence.js';
import { queryParams, unboundParams } from '../../detect/query-rows.js';
import { openWorkspace, upgradeTold, type InputOptions } from '../workspace.js';

export function registerQuery(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('query')
    .description('read-only SQL over the timeline, or a named query from queries/ (--list)')
    .argument('[sql]', 'SQL text, or the name of a query in queries/ (e.g. rejected)')
    .argument('[paths...]', 'log files, folders, or - for stdin');
  addInputOptions(cmd);
  addThresholdOptions(cmd)
    .option('--list', 'list the named queries')
    .option('--schema', 'list the tables and views a query sees, their columns and what each holds (of --db FILE if given)')
    .addOption(new Option('-f, --format <format>', 'output format: table (NULL as <NULL>), json (exact values), csv (NULL an empty cell, \'\' as "")').choices(['table', 'json', 'csv']).default('table'))
    .option('--wide', 'show table cells whole (by default a cell is cut at 80 characters, ending in …)')
    .addOption(new Option('--max-rows <n>', 'stop a query that returns more rows than this').argParser(positiveInt('--max-rows')).default(DEFAULT_CAPS.maxRows))
    .addOption(
      new Option('--timeout <duration>', 'stop a query that runs longer than this (10s, 500ms, 2m; bare digits are seconds, as before units were taken)')
        .argParser(timeoutSeconds)
        .default(DEFAULT_CAPS.timeoutMs / 1000, '10s'),
    )
    .action(async (sql: string | undefined, paths: string[], flags: InputOptions & SettingFlags & { list?: boolean; schema?: boolean; format: string; wide?: boolean; maxRows: number; timeout: number }) => {
      if (flags.list) {
        // Reports and rule queries; facts are run by the detectors with their own arguments.
        for (const q of listQueries().filter((q) => q.folder !== 'facts' && unboundParams(loadQuery(`${q.folder}/${q.name}`)).length === 0)) {
          io.out(`${q.name.padEnd(32)} ${q.title}\n`);
        }
        return done(0);
      }
      if (flags.schema) {
        io.out(schemaText(schemaOf(flags.db, io), flags.format as RowsFormat));
        return done(0);
      }
      if (sql === undefined) throw new UsageError('give SQL or a query name (resumescope query --list)');
      const named = queryPath(sql) !== undefined;
      // A bare word is a query name, never SQL: say so rather than report a syntax error.
      if (!named && /^[a-z0-9][a-z0-9-]*$/i.test(sql) && !/^(select|with|values|explain|pragma)$/i.test(sql)) {
        // A rule judged in its module has no rules/<id>.sql: point at the questions it asks.
        if (isRuleId(sql)) {
          const facts = factsNaming(sql);
          throw new UsageError(
            `"${sql}" is a rule judged in its module (src/detect/rules/${sql}.ts), not one query` +
              (facts.length > 0 ? `; the questions it asks are ${facts.join(', ')} (resumescope query --list shows those that run by name)` : '') +
              `; its findings: resumescope analyze --rule ${sql}, or resumescope explain ${sql}`,
          );
        }
        throw new UsageError(`no named query "${sql}" (see resumescope query --list)`);
      }
      const text = named ? loadQuery(sql) : sql;
      const unbound = named ? unboundParams(text) : [];
      if (unbound.length > 0) {
        // An internal fact query the detectors run with their own arguments: not a user query.
        throw new UsageError(`"${sql}" is an internal query the detectors run with :${unbound.join(', :')}; it cannot be run on its own (see resumescope query --list)`);
      }
      // The query's process boots while the logs are read; it needs a database file it can
      // open, never SQLite's anonymous temporary one.
      const proc = new QueryProcess();
      const ws = await openWorkspace(paths, flags, io, undefined, () => openScratchDb()).catch((err: unknown) => {
        proc.close();
        throw err;
      });
      try {
        deriveOrAnswerFromCommitted(ws.db, io);
        // The detectors' queries take the same thresholds analyze runs with (flags, then the config file).
        const caps = { maxRows: flags.maxRows, timeoutMs: flags.timeout * 1000 };
        const out = readableRowsWriter(flags.format as RowsFormat, (piece) => void io.out(piece), { wide: flags.wide ?? false, evidenceLines: (ids) => resolveEvidence(ws.db, ids) });
        await runReadOnly(ws.db, text, { ...DEFAULT_DETECT_OPTIONS, ...defined(detectOptions(flags, loadConfig(flags.config, io, { name: 'query', unread: ['failOn', 'retention'] }))) }, caps, proc, named, out).catch(
          (err: unknown) => {
            // JSON and CSV were written as they came: say that what is out is not the whole answer.
            if (err instanceof UsageError && out.written > 0) err.message += `; the ${out.written} rows written above are not the whole answer`;
            throw err;
          },
        );
        out.end();
        done(ws.unusable ? 2 : 0);
      } finally {
        proc.close(); // when the query never ran (a refused statement)
        ws.db.close();
      }
    });
}

/**
 * Runs one statement that does not write; the detectors' named parameters get
 * the given thresholds. It is checked here (refused, or an SQL error, named as
 * such) and run in a child process that is killed at the time limit, before its
 * first row or after, and stopped at the row cap (store/bounded-query.ts). Its
 * rows go to `sink` as they come.
 */
export async function runReadOnly(
  db: Db,
  sql: string,
  d: DetectOptions,
  caps: QueryCaps,
  proc: QueryProcess,
  named: boolean,
  sink: RowSink,
): Promise<number> {
  try {
    // A named query may build TEMP tables first (queryParts); its answer reads them, so only the child,
    // which builds them, can prepare it. Those are our own files: a user's SQL is always one statement.
    const parts = named ? queryParts(sql) : { stages: [], select: sql, tables: [] };
    if (parts.stages.length > 0) {
      const stages = parts.stages.map((stage) => ({ sql: stage, params: queryParams(stage, d) }));
      return await proc.run(db.name, parts.select, queryParams(parts.select, d), caps, sink, { stages, tables: parts.tables });
    }
    return await proc.run(db.name, checked(db, parts.select), queryParams(parts.select, d), caps, sink);
  } catch (err) {
    if (err instanceof QueryFailed) throw sqlError(err.message);
    if (!(err instanceof QueryStopped)) throw err;
    if (err.cap === 'rows') throw new UsageError(`query stopped: it returns more than ${caps.maxRows} rows (add a LIMIT, or raise the cap with --max-rows N)`);
    throw new UsageError(`query stopped after ${caps.timeoutMs / 1000} s (--timeout), ${err.rowsSoFar} rows so far: add a LIMIT or a narrower WHERE, or raise the limit with --timeout DURATION (e.g. 60s)`);
  } finally {
    proc.close();
  }
}

/** The statement, if it reads and does not write; preparing it runs nothing. */
function checked(db: Db, sql: string): string {
  let stmt;
  try {
    stmt = db.prepare(sql);
  } catch (err) {
    throw sqlError((err as Error).message);
  }
  if (!stmt.readonly) throw new UsageError('query refused: it would write to the database (query is read-only)');
  if (!stmt.reader) throw new UsageError('query refused: it returns no rows (only SELECT-like statements are run)');
  return sql;
}

/** SQLite's message, and where to find the tables when it names one that is not there. */
function sqlError(message: string): UsageError {
  const table = /no such table: (\S+)/.exec(message)?.[1];
  if (table === undefined) return new UsageError(`SQL: ${message}`);
  const sessions = table === 'sessions' ? '; a session is a row of incarnations, and `query sessions` is a named report' : '';
  return new UsageError(`SQL: ${message} (resumescope query --schema lists the tables${sessions})`);
}

/**
 * A --db file whose tables --schema lists: upgraded where it is an older schema's and may be written,
 * as every command does; read-only otherwise. A missing or empty file is never made a database here.
 */
function openSchemaOf(dbFile: string, io: Io): Db {
  const isDatabase = existsSync(dbFile) && statSync(dbFile).size > 0;
  return isDatabase ? openDb(dbFile, { readonlyIfNeeded: true, onUpgrade: upgradeTold(dbFile, io) }) : openDb(dbFile, { readonly: true });
}

/** The tables and views a query sees (a new database's when no --db is given: the schema is the same). */
function schemaOf(dbFile: string | undefined, io: Io): SchemaTable[] {
  const db = dbFile === undefined ? openDb(':memory:') : openSchemaOf(dbFile, io);
  try {
    return describeSchema(db);
  } finally {
    db.close();
  }
}

function positiveInt(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag}: expected a whole number of at least 1, got "${v}"`);
    return n;
  };
}

/**
 * --timeout in seconds. It took bare seconds before it took units; every other time flag refuses bare digits
 * (their unit is ambiguous), but here a script's `--timeout 30` has always meant 30 s, so it still does.
 */
function timeoutSeconds(v: string): number {
  const t = v.trim();
  const ms = /^\d+(\.\d+)?$/.test(t) ? Number(t) * 1000 : duration(t, '--timeout');
  if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`--timeout: expected a duration above 0 (10s, 500ms, 2m), got "${v}"`);
  return ms / 1000;
}

/**
 * query reads; it derives only what its own ingest left to derive, and gives the planner its
 * statistics if they are missing or stale (without, a per-session lookup can become a scan per
 * row). When another process holds the write lock (an ingest still deriving), answer from
 * what is committed rather than fail.
 */
function deriveOrAnswerFromCommitted(db: Db, io: Io): void {
  try {
    derive(db);
    refreshStatistics(db);
  } catch (err) {
    if (!isLocked(err)) throw err;
    io.err(`resumescope: ${db.name} is being written by another process: answering from what it has committed (derived tables may lag)\n`);
  }
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
