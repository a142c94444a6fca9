import { existsSync, statSync } from 'node:fs';
import { expandInputs, InputError, unlistedFilesNote, unreadSubfoldersNote, type Source } from '../read/sources.js';
import { splittingOf } from '../read/entries.js';
import { STDIN_NAME } from '../read/follow.js';
import { upgradeNote, type Db } from '../store/db.js';
import { sourceCount } from '../store/source-sink.js';
import { isWatchMark } from '../live/unfinished-inputs.js';
import { INPUT_FORMATS, loadMappingFile } from '../normalize/formats/index.js';
import { loadInputs, unusableReason, type IngestOptions, type SourceStats } from '../pipeline/ingest.js';
import type { UnusableInput } from '../model/unusable-input.js';
import { UsageError, type Io } from './io.js';
import { checkInputFormat, withProgress } from '../api.js';
import type { ProgressListener } from '../model/progress.js';
import { printable } from '../model/printable.js';

export interface InputOptions {
  db?: string;
  inputFormat?: string;
  mapping?: string;
  /** Copy every line's text into the throw-away database too (see IngestOptions.copyLines). */
  copyLines?: boolean;
  /** A folder's subfolders are read too. */
  recursive?: boolean;
  /** A file that is one JSON array is read an entry a line; a CSV download, a row a line. */
  jsonArray?: boolean;
  csv?: boolean;
}

export interface OpenedWorkspace {
  db: Db;
  sources: SourceStats[];
  /** True when an input file was unusable: the run must exit 2 after reporting. */
  unusable: boolean;
  /** Those inputs and why, for the reports (render options `unusable`). */
  unusableInputs: UnusableInput[];
}

/**
 * Every analysing command takes PATHs directly (an embedded database, or
 * --db FILE to keep it), or just --db for a database ingested earlier: the
 * user never has to run two commands where one will do.
 */
export async function openWorkspace(
  paths: string[],
  opts: InputOptions,
  io: Io,
  onProgress?: ProgressListener,
  /** The database when no --db is given (default: a one-off one, pipeline/ingest.ts loadInputs). */
  embedded?: (sources: Source[]) => Db,
): Promise<OpenedWorkspace> {
  if (paths.length === 0 && opts.db === undefined) throw new UsageError('give log files (or - for stdin), or --db FILE with logs ingested earlier');
  if (paths.length === 0 && opts.db !== undefined) {
    if (!existsSync(opts.db)) throw new UsageError(`${opts.db}: no such database; ingest logs into it first`);
    // An empty file (`DB=$(mktemp)` when the ingest step never ran) is no database of logs: judged, it passed a gate.
    const st = statSync(opts.db);
    if (st.isFile() && st.size === 0) throw new UsageError(`${opts.db}: an empty file, no database; ingest logs into it first`);
  }
  // Standard input is read once: a second `-` waited for an end that had come, and the run ended without a word, exit 0.
  if (paths.filter((p) => p === '-').length > 1) throw new UsageError('- (standard input) is named more than once: it can be read once');
  let sources;
  try {
    const expanded = expandInputs(paths, { recursive: opts.recursive ?? false, csv: opts.csv === true });
    sources = expanded.sources;
    for (const u of expanded.unread) io.err(`resumescope: ${printable(unreadSubfoldersNote(u))}\n`);
    for (const u of expanded.unlisted) io.err(`resumescope: ${printable(unlistedFilesNote(u))}\n`);
  } catch (err) {
    if (err instanceof InputError) throw new UsageError(err.message);
    throw err;
  }
  const ingestOptions: IngestOptions = { ...inputFormats(opts), ...(opts.copyLines ? { copyLines: true } : {}), ...splittingOf(opts) };
  const { db, stats, unusable, unusableEarlier } = await loadInputs(sources, {
    ...withProgress(ingestOptions, onProgress),
    ...(opts.db !== undefined && { db: opts.db, onUpgrade: upgradeTold(opts.db, io) }),
    ...(embedded !== undefined && { embedded }),
  });
  reportSources(stats, io, opts.db);
  const unusableInputs: UnusableInput[] = [...unusable];
  // The database lacks what an earlier ingest into it could not read: said again, and the run exits 2 as that one did.
  for (const u of unusableEarlier) {
    const advice = isWatchMark(u.reason)
      ? `in ${opts.db}; analyze the file itself, or ingest it into a new --db file`
      : `when ingested into ${opts.db}; ingest it again once it is usable`;
    io.err(`resumescope: ${printable(`${u.name}: unusable: ${u.reason} (${advice})`)}\n`);
    unusableInputs.push(u);
  }
  // A database that holds no input and no mark of one that failed: its schema was written and the run that was
  // to fill it stopped before its first write (killed at the start). Judged, it was "no findings", exit 0.
  if (paths.length === 0 && opts.db !== undefined && unusableInputs.length === 0 && sourceCount(db) === 0) {
    db.close();
    throw new UsageError(`${opts.db}: holds no ingested input (the ingest that created it stopped before it stored any?); ingest logs into it first`);
  }
  return { db, sources: stats, unusable: unusableInputs.length > 0, unusableInputs };
}

/**
 * Each input's word (reportSource), but of the inputs that only had lines rejected, the first
 * REJECTING_FILES_NAMED, then their count: a folder of many files with a bad line each must not bury the
 * other messages (every unusable input is still named: each fails the run).
 */
function reportSources(stats: readonly SourceStats[], io: Io, dbPath: string | undefined): void {
  let named = 0;
  let files = 0;
  let lines = 0;
  for (const s of stats) {
    const onlyRejected = s.rejected > 0 && unusableReason(s) === undefined && s.duplicateOf === undefined;
    if (!onlyRejected || named++ < REJECTING_FILES_NAMED) reportSource(s, io, dbPath);
    else {
      files++;
      lines += s.rejected;
    }
  }
  if (files > 0) {
    const where = dbPath === undefined ? 'resumescope query rejected on the same inputs' : `resumescope query rejected --db ${shellWord(dbPath)}`;
    io.err(`resumescope: and ${files} more input${files === 1 ? '' : 's'} with rejected lines (${lines} in all); ${where} lists every one\n`);
  }
}

const REJECTING_FILES_NAMED = 10;

/** Says on stderr what happened to an input that needs a word: bad lines, duplicates, an unusable file. */
export function reportSource(s: SourceStats, io: Io, dbPath?: string): void {
  const said = sourceProblem(s, dbPath);
  // A file name, a reason quoting a line: log text, made printable.
  if (said !== undefined) io.err(`resumescope: ${printable(said)}\n`);
}

function sourceProblem(s: SourceStats, dbPath: string | undefined): string | undefined {
  const unusable = unusableReason(s);
  if (unusable !== undefined) return `${s.name}: unusable: ${unusable}`;
  if (s.duplicateOf !== undefined) return `${s.name}: already ingested (same content as ${s.duplicateOf}); nothing added`;
  if (s.rejected > 0) return rejectedLinesSaid(s, dbPath);
  return undefined;
}

/**
 * "x.ndjson: 2 of 40 lines rejected (first: …); list them: …", with where they can be read back: from a
 * kept database, else the file again where it still holds them (`rereadable`: not stdin, nor a file a live
 * tail saw rotated or truncated away), else only from a database kept the next time.
 */
export function rejectedLinesSaid(s: SourceStats, dbPath: string | undefined, rereadable = s.name !== STDIN_NAME): string {
  const first = s.firstProblem!;
  const where =
    dbPath !== undefined
      ? `they are kept: resumescope query rejected --db ${shellWord(dbPath)}`
      : rereadable
        ? `list them: resumescope query rejected ${shellWord(s.name)}`
        : 'to read them, re-run with --db FILE, then: resumescope query rejected --db FILE';
  return `${s.name}: ${s.rejected} of ${s.lines} lines rejected (first: line ${first.line}: ${first.reason}); ${where}`;
}

/** A path as a shell takes it: quoted where it holds anything but the plainest characters. */
function shellWord(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** The formats to detect with (a --mapping first), and a forced one checked before any file is read. */
function inputFormats(opts: InputOptions): IngestOptions {
  let formats = INPUT_FORMATS;
  if (opts.mapping !== undefined) {
    try {
      formats = [loadMappingFile(opts.mapping), ...INPUT_FORMATS];
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const forced = opts.inputFormat;
  try {
    checkInputFormat({ ...(forced !== undefined && { inputFormat: forced }), formats }, '--input-format');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return { formats, ...(forced !== undefined && { inputFormat: forced }) };
}

/** Says on stderr that a --db file was upgraded as it opened: in a pipeline where two versions share it, the older one now refuses it. */
export function upgradeTold(path: string, io: Io): (from: number, to: number) => void {
  return (from, to) => io.err(`resumescope: ${printable(upgradeNote(path, from, to))}\n`);
}
