import type { Report } from './model/finding.js';
import { detect, type RunOptions } from './detect/run.js';
import { expandPaths, type Source } from './read/sources.js';
import { EMBEDDED_DB, openDb, type Db } from './store/db.js';
import { ingestAll, type IngestOptions, type SourceStats } from './store/ingest.js';
import type { InputFormat } from './normalize/formats/index.js';

// The programmatic entry: the same pipeline the CLI runs (read → normalize →
// store → detect), for tests and for embedding.

export interface AnalyzeOptions extends RunOptions {
  /** Keep the timeline in this file; default is a throw-away temporary database. */
  db?: string;
  inputFormat?: string;
  formats?: InputFormat[];
}

export interface Workspace {
  db: Db;
  sources: SourceStats[];
}

/** Opens the database and ingests the given sources into it. */
export async function loadWorkspace(sources: Source[], opts: { db?: string } & IngestOptions = {}): Promise<Workspace> {
  const db = openDb(opts.db ?? EMBEDDED_DB);
  const stats = await ingestAll(db, sources, opts);
  return { db, sources: stats };
}

export async function analyzeSources(sources: Source[], opts: AnalyzeOptions = {}): Promise<Report> {
  const ws = await loadWorkspace(sources, opts);
  try {
    return detect(ws.db, opts);
  } finally {
    ws.db.close();
  }
}

export async function analyzeFiles(paths: string[], opts: AnalyzeOptions = {}): Promise<Report> {
  return analyzeSources(expandPaths(paths), opts);
}

export type { Report } from './model/finding.js';
