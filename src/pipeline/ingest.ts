import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { InputFormat } from '../normalize/formats/index.js';
import { INPUT_FORMATS } from '../normalize/formats/index.js';
import type { InputLine } from '../read/lines.js';
import { splitLineBatches, splittingOf } from '../read/entries.js';
import { plainFile, type Source } from '../read/sources.js';
import { needsSpool, spool } from '../read/spool.js';
import { EMBEDDED_DB, isLocked, lockedError, openDb, quotesFromFiles, StoreError, type Db } from '../store/db.js';
import { openScratchDb, removedOnClose, scratchFolderIfAny, spoolPath, type ScratchFolder } from '../store/scratch-db.js';
import { interleaveNodeTiesOfRun, loadSource, SourceSink, unusableReason, type SourceFeed, type SourceFile, type SourceStats } from '../store/source-sink.js';
import { loadRecentLines, saveRecentLines } from '../store/recent-lines.js';
import { refuseHeldPrefixes } from '../store/followed-prefix.js';
import { markUnfinished, noteInputOutcomes, restoredMark, unusableMarks, type InputOutcome, type UnusableMark } from '../store/unusable-inputs.js';
import type { UnusableInput } from '../model/unusable-input.js';
import { LinePieces } from './line-pieces.js';
import { LineStage } from './normalize-lines.js';
import { NormalizeWorker, WORKER_SCRIPT, workerAvailable } from './worker-feed.js';
import type { HandOver } from './worker-protocol.js';

// The pipeline: read → normalize → store. The store receives normalized lines
// only; this module decides where reading and normalizing run: in a worker
// thread for large inputs (the main thread writes SQLite meanwhile), in this
// thread for small ones, stdin, and user mappings (functions cannot cross to a worker).

export interface IngestOptions {
  /** Force one input format (`--input-format`) instead of detecting it per file. */
  inputFormat?: string;
  /** The adapters to detect with; a user mapping goes in front of the built-in ones. */
  formats?: InputFormat[];
  /** Told the lines read so far of a source after each batch (progress display; must be cheap). */
  onLines?: (source: string, lines: number) => void;
  /** Where to normalize: `auto` (a worker from WORKER_MIN_BYTES of files on), or always in a worker, or never. */
  threads?: 'auto' | 'worker' | 'inline';
  /** The worker's script (tests). */
  workerScript?: URL;
  /** When the worker hands lines over unnormalized (worker-protocol.ts; tests). */
  handOver?: HandOver;
  /** Copy every line's text even into the throw-away database (`tui`: it lives long, and files rotate under it). */
  copyLines?: boolean;
  /** A file that is one JSON array is read an entry a line (`--json-array`), a CSV download a row a line (`--csv`): read/entries.ts. */
  jsonArray?: boolean;
  csv?: boolean;
}

/**
 * From this many bytes of input files on, normalizing runs in a worker. Below
 * it the worker's start-up (~40 ms: a thread, its module graph) costs more
 * than the overlap saves.
 */
export const WORKER_MIN_BYTES = 4 * 1024 * 1024;

/** One source's lines, read and normalized in this thread. */
function inlineFeed(source: Source, opts: IngestOptions, copyLines = true): SourceFeed {
  const hash = createHash('sha256');
  let digest: string | undefined;
  return {
    async run(sink) {
      const stage = new LineStage(opts.inputFormat, opts.formats, copyLines, source.path);
      const pieces = new LinePieces();
      for await (const batch of splitLineBatches(source.open(), (c) => hash.update(c), splittingOf(opts))) {
        for (const l of pieces.push(batch)) sink.add(stage.normalize(l));
        opts.onLines?.(source.name, sink.stats.lines);
      }
      for (const l of pieces.end()) sink.add(stage.normalize(l));
    },
    digest: () => (digest ??= hash.digest('hex')),
  };
}

/** Ingests one source in this thread, in one transaction. */
export function ingestSource(db: Db, source: Source, opts: IngestOptions = {}): Promise<SourceStats> {
  const file = rereadFrom(db, source, opts);
  return loadSource(db, source.name, inlineFeed(source, opts, file === undefined), file);
}

/**
 * A one-off run's throw-away database keeps where each line of a plain file is, not a copy (as lnav
 * keeps offsets): the copy was half the records table, and every scan and index build paid for it.
 * A --db file keeps the text, so that it quotes its evidence after the logs are rotated away;
 * stdin and compressed files keep it too, having no bytes to go back to.
 */
function rereadFrom(db: Db, source: Source, opts: IngestOptions): SourceFile | undefined {
  return quotesFromFiles(db) && opts.copyLines !== true ? plainFile(source) : undefined;
}

function inputBytes(sources: Source[]): number {
  let n = 0;
  for (const s of sources) {
    if (s.path === null) continue;
    try {
      n += statSync(s.path).size;
    } catch {
      // unreadable: its open() says why
    }
  }
  return n;
}

/** Input files of WORKER_MIN_BYTES or more: large enough that a second thread pays. */
function isLargeInput(sources: Source[]): boolean {
  return inputBytes(sources) >= WORKER_MIN_BYTES;
}

/**
 * A one-off run's database: SQLite's anonymous temporary file, or for a large input a named one in a
 * private folder, which derive's and detect's second threads can open beside this connection
 * (store/derive-threads.ts, detect/parallel.ts). Both are deleted when closed, and both quote
 * evidence from the log files. Where TMPDIR takes no folder (missing, read-only), a large input
 * too gets the anonymous file, which SQLite puts in the first writable of TMPDIR, /var/tmp, /tmp
 * and the working folder, and is read on one thread: slower, but it runs whatever the input's size.
 */
function oneOffDb(sources: Source[], folder?: ScratchFolder): Db {
  if (isLargeInput(sources)) {
    const own = folder ?? scratchFolderIfAny();
    if (own !== undefined) return openScratchDb({ quotesFromFiles: true, folder: own });
  }
  const db = openDb(EMBEDDED_DB);
  return folder === undefined ? db : removedOnClose(db, folder);
}

export interface LoadOptions extends IngestOptions {
  /** Keep the timeline in this file (its lines are copied into it); default: a one-off database. */
  db?: string;
  /** Told when the --db file's older schema was upgraded as it opened (store/db.ts). */
  onUpgrade?: (from: number, to: number) => void;
  /** The one-off database to use instead of oneOffDb's (it copies every line). */
  embedded?: (sources: Source[]) => Db;
}

/**
 * A command's inputs read, normalized and stored: into the --db file, or a one-off database. A
 * one-off database quotes evidence from the log files; stdin and gzip files, which have no bytes to
 * go back to, are first copied (decompressed) into its private folder and read from there as plain
 * files: no line is copied into the database, stdin is normalized in the worker like a file, and its
 * size, now known, picks the database as a file's does. Their lines are told to `onLines` while they
 * are copied (stdin comes at its writer's pace); while stored, the count stays at the whole.
 */
export async function loadInputs(sources: Source[], opts: LoadOptions = {}): Promise<LoadedInputs> {
  const { db, stats, marksBefore } = await load(sources, opts);
  const outcomes = stats.map((s, i): Outcome => ({ input: inputOf(sources[i]!, s.name), reason: unusableReason(s), stats: s }));
  const unusable = outcomes.flatMap(({ input: { name, file }, reason }) => (reason === undefined ? [] : [{ name, reason, file }]));
  if (opts.db === undefined) return { db, stats, unusable, unusableEarlier: [] };
  return { db, stats, unusable, unusableEarlier: closingOnError(db, () => keepUnusable(db, outcomes, marksBefore)) };
}

/** What one input's read came to: the input as the marks know it, why it was unusable (if it was), its stats. */
interface Outcome {
  input: Omit<InputOutcome, 'reason'>;
  reason: string | undefined;
  stats: SourceStats;
}

/** `write` on the --db file, which is closed if it throws; a lock held by another process is said as such. */
function closingOnError<T>(db: Db, write: () => T): T {
  try {
    return write();
  } catch (err) {
    const thrown = isLocked(err) ? lockedError(db) : err;
    db.close();
    throw thrown;
  }
}

export interface LoadedInputs {
  db: Db;
  /** One per source, in their order. */
  stats: SourceStats[];
  /** This run's unusable inputs and why, in their order. */
  unusable: UnusableInput[];
  /** A --db file's unusable inputs from earlier ingests, that this run did not read (store/unusable-inputs.ts). */
  unusableEarlier: UnusableInput[];
}

/**
 * A --db file keeps the unusable inputs of its ingests until one reads them, so that a later command
 * on it fails as that ingest did; returns those this run says nothing new of, for the caller to say
 * again. An input is told apart by its absolute path, however it was spelled. Bytes the database held
 * already say nothing new of their input unless they gave records (then the input is in it).
 */
function keepUnusable(db: Db, read: readonly Outcome[], marksBefore: ReadonlyMap<string, UnusableMark>): UnusableInput[] {
  const outcomes: InputOutcome[] = [];
  const told = new Set<string>();
  for (const { input, reason, stats: s } of read) {
    // An input read again as the same bytes keeps its earlier mark, to be said again below (its unfinished mark
    // from this run's start goes: the bytes are all in).
    if (reason === undefined && s.duplicateOf !== undefined && s.duplicateHasRecords !== true) outcomes.push(restoredMark(marksBefore, input));
    else {
      outcomes.push({ ...input, ...(reason !== undefined && { reason }) });
      // This run's unusable inputs are its own to tell.
      told.add(input.key);
    }
  }
  // A run with no input (`analyze --db`) writes nothing: it needs no write lock.
  const marks = outcomes.length > 0 ? noteInputOutcomes(db, outcomes) : unusableMarks(db);
  return marks.filter((m) => !told.has(m.key)).map(({ name, reason, file }) => ({ name, reason, file }));
}

/**
 * An input as the --db file's marks know it: a file by its absolute path, however it was spelled; stdin by its
 * name. `file` is the source as given: stdin read through a spool has a path, but no file of the user's.
 */
function inputOf(s: Source, name: string): Omit<InputOutcome, 'reason'> {
  return { key: s.path === null ? s.name : resolve(s.path), name, file: s.path !== null };
}

async function load(sources: Source[], opts: LoadOptions): Promise<{ db: Db; stats: SourceStats[]; marksBefore: ReadonlyMap<string, UnusableMark> }> {
  // Which sources to spool is asked (a stat and a read of each) only where a spool could be used.
  const spools = opts.db === undefined && opts.embedded === undefined && opts.copyLines !== true ? sources.map(needsSpool) : [];
  // The run's private folder for spools; none when TMPDIR takes none (then lines are copied, as before spools).
  const folder = spools.includes(true) ? scratchFolderIfAny() : undefined;
  if (folder === undefined) {
    const db =
      opts.db !== undefined
        ? openDb(opts.db, { readonlyIfNeeded: sources.length === 0, ...(opts.onUpgrade && { onUpgrade: opts.onUpgrade }) })
        : (opts.embedded ?? oneOffDb)(sources);
    const marksBefore =
      opts.db !== undefined && sources.length > 0
        ? closingOnError(db, () => {
            // A file whose first lines `watch --db` stored would get them twice: refused before anything is written.
            refuseHeldPrefixes(db, sources.flatMap((s) => (s.path === null ? [] : [s.path])));
            return markUnfinished(db, sources.map((s) => inputOf(s, s.name)));
          })
        : new Map<string, UnusableMark>();
    return { db, stats: await ingestAll(db, sources, opts), marksBefore };
  }
  let db: Db;
  /** Lines counted as each spool was written. */
  const spooled = new Map<string, number>();
  const onSpooled = (name: string, lines: number) => {
    spooled.set(name, lines);
    opts.onLines?.(name, lines);
  };
  const read: Source[] = [];
  /** Each read source's spool, where it has one. */
  const spoolOf: (string | undefined)[] = [];
  try {
    for (const [i, s] of sources.entries()) {
      if (!spools[i]) read.push(s);
      else {
        spooled.set(s.name, 0);
        spoolOf[read.length] = spoolPath(folder, read.length);
        read.push(await spool(s, spoolOf[read.length]!, onSpooled));
      }
    }
    db = oneOffDb(read, folder);
  } catch (err) {
    folder.remove();
    throw err;
  }
  // A spooled source's lines were all counted as they were copied: storing them does not count them again.
  const onLines = opts.onLines;
  const counted = onLines && ((name: string, lines: number) => onLines(name, Math.max(lines, spooled.get(name) ?? 0)));
  const stats = await ingestAll(db, read, { ...opts, ...(counted && { onLines: counted }) });
  const lost = stats.findIndex((s, i) => s.readError !== undefined && spoolOf[i] !== undefined && !existsSync(spoolOf[i]!));
  if (lost !== -1) {
    db.close();
    throw spoolLost(stats[lost]!.name, spoolOf[lost]!);
  }
  return { db, stats, marksBefore: new Map() };
}

/**
 * A spool that was there when written and is gone when read was removed under the run (by hand, or a
 * TMPDIR cleaner): like a spool that cannot be written (read/spool.ts), the run's failure, never the input's.
 */
function spoolLost(name: string, path: string): StoreError {
  return new StoreError(
    `${name}: its copy in this run's scratch folder (${path}) was removed while the run read it (a cleaner of TMPDIR?); the run stopped, the input was not judged`,
  );
}

function useWorker(sources: Source[], opts: IngestOptions): boolean {
  const mode = opts.threads ?? 'auto';
  if (mode === 'inline') return false;
  // A user's mapping is code-free JSON, but it reaches here as functions: it stays in this thread.
  if (opts.formats !== undefined && opts.formats !== INPUT_FORMATS) return false;
  if (!workerAvailable(opts.workerScript ?? WORKER_SCRIPT)) return false;
  return mode === 'worker' || isLargeInput(sources);
}

export async function ingestAll(db: Db, sources: Source[], opts: IngestOptions = {}): Promise<SourceStats[]> {
  const out: SourceStats[] = [];
  // One window for the run's files, in the order read, and on from the run before into the same database:
  // an export's overlapping pages repeat lines across them.
  const recent = loadRecentLines(db);
  const worker = useWorker(sources, opts) ? new NormalizeWorker(opts.workerScript, opts.handOver) : undefined;
  try {
    for (const s of sources) {
      // Files go to the worker; stdin (no path) is read here. After a store error the worker is stopped: the rest are read here.
      const file = rereadFrom(db, s, opts);
      const copyLines = file === undefined;
      const feed =
        worker && !worker.broken && s.path !== null ? worker.feed(s.path, opts, copyLines) : inlineFeed(s, opts, copyLines);
      out.push(await loadSource(db, s.name, feed, file, recent));
    }
  } finally {
    await worker?.close();
  }
  // Only after a load: a run with no input (`query --db`, `analyze --db`) writes nothing, and needs no write lock.
  if (sources.length > 0) saveRecentLines(db, recent);
  interleaveNodeTiesOfRun(db, out);
  return out;
}

/**
 * One source's lines as they come (watch, live): normalized in this thread
 * and written in the caller's transactions.
 */
export class SourceIngest {
  private readonly sink: SourceSink;
  private readonly stage: LineStage;
  private readonly pieces = new LinePieces();

  constructor(db: Db, name: string, opts: IngestOptions & { complete?: boolean } = {}) {
    this.stage = new LineStage(opts.inputFormat, opts.formats, true, name);
    this.sink = new SourceSink(db, name, opts.complete === undefined ? {} : { complete: opts.complete });
  }

  get stats(): SourceStats {
    return this.sink.stats;
  }
  get sourceId(): number {
    return this.sink.sourceId;
  }
  get touched(): Set<string> {
    return this.sink.touched;
  }

  add(l: InputLine): void {
    for (const j of this.pieces.push([l])) this.sink.add(this.stage.normalize(j));
  }
  flush(): void {
    this.sink.flush();
  }
  /** The source ended: a line still waiting on its last piece is read as it stands (pipeline/line-pieces.ts). Then finish. */
  end(): void {
    for (const j of this.pieces.end()) this.sink.add(this.stage.normalize(j));
  }
  finish(sha256: string | null): boolean {
    return this.sink.finish(sha256);
  }
}

export { isUnusable, unusableReason, type SourceStats } from '../store/source-sink.js';
