import { inMemory } from './findings/recount.js';
import type { Report } from './model/finding.js';
import type { RunOptions } from './detect/run.js';
import { expandInputs, type Source } from './read/sources.js';
import type { Db } from './store/db.js';
import { loadInputs, type IngestOptions, type SourceStats } from './pipeline/ingest.js';
import { INPUT_FORMATS, type InputFormat } from './normalize/formats/index.js';
import { SPEC_FORMAT } from './normalize/normalize-line.js';
import type { UnusableInput } from './model/unusable-input.js';
import type { ProgressListener } from './model/progress.js';
import { findingsOf } from './pipeline/findings.js';

// The programmatic entry: the same pipeline the CLI runs (read → normalize →
// store, then pipeline/findings.ts: derive → detect), for tests and for embedding.

export interface AnalyzeOptions extends RunOptions {
  /** Keep the timeline in this file; default is a throw-away temporary database. */
  db?: string;
  inputFormat?: string;
  formats?: InputFormat[];
  /** Told the lines read and each stage begun, for a progress display (the CLI's, the tui's loading screen). */
  onProgress?: ProgressListener;
  /** analyzeFiles: a folder's subfolders are read too (default: its own log files). */
  recursive?: boolean;
  /** A file that is one JSON array is read an entry a line, a CSV download a row a line (read/entries.ts). */
  jsonArray?: boolean;
  csv?: boolean;
}

export interface Workspace {
  db: Db;
  sources: SourceStats[];
}

/** Opens the database and ingests the given sources into it. */
export async function loadWorkspace(sources: Source[], opts: { db?: string; onProgress?: ProgressListener } & IngestOptions = {}): Promise<Workspace> {
  const { db, stats } = await loadInputs(sources, withProgress(opts, opts.onProgress));
  return { db, sources: stats };
}

/** A report, and the inputs that could not be used: a run with any fails its gate (exitCodeFor gives 2), as the CLI's does. */
export interface AnalyzedReport extends Report {
  unusable: UnusableInput[];
}

export async function analyzeSources(sources: Source[], opts: AnalyzeOptions = {}): Promise<AnalyzedReport> {
  checkInputFormat(opts);
  const { db, unusable } = await loadInputs(sources, withProgress(opts, opts.onProgress));
  try {
    return { ...inMemory(await findingsOf(db, opts, { onProgress: opts.onProgress, cached: opts.db !== undefined })), unusable };
  } finally {
    db.close();
  }
}

/** A forced input format the run does not know is the caller's mistake, said before any file is read. */
export function checkInputFormat(opts: { inputFormat?: string; formats?: InputFormat[] }, named = 'inputFormat'): void {
  const forced = opts.inputFormat;
  const formats = opts.formats ?? INPUT_FORMATS;
  if (forced !== undefined && forced !== 'auto' && forced !== SPEC_FORMAT && !formats.some((f) => f.name === forced)) {
    throw new RangeError(`${named}: unknown format "${forced}" (known: auto, ${[SPEC_FORMAT, ...formats.map((f) => f.name)].join(', ')})`);
  }
}

export async function analyzeFiles(paths: string[], opts: AnalyzeOptions = {}): Promise<AnalyzedReport> {
  return analyzeSources(expandInputs(paths, { recursive: opts.recursive ?? false, csv: opts.csv === true }).sources, opts);
}

/** Ingest options that also report lines read to a progress listener. */
export function withProgress<T extends IngestOptions>(opts: T, onProgress: ProgressListener | undefined): T {
  if (onProgress === undefined) return opts;
  onProgress({ type: 'stage', stage: 'read' });
  return { ...opts, onLines: (source, lines) => onProgress({ type: 'lines', source, lines }) };
}

export type { Report } from './model/finding.js';
export type { UnusableInput } from './model/unusable-input.js';
export type { ProgressEvent, ProgressListener, Stage } from './model/progress.js';
