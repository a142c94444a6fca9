import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach } from 'vitest';
import { loadWorkspace, type Workspace } from '../../src/api.js';
import { missingField, type LineOutcome, type NormalizedRecord } from '../../src/model/record.js';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';
import { gunzipIfNeeded, type Source } from '../../src/read/sources.js';
import type { Db } from '../../src/store/db.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { logSource, type LogLine } from '../helpers/logs.js';

// Shared plumbing for the ingest tests: one line through the normalizer, or
// whole files through the store, and the rows that came out.

export const T0 = '2026-11-09T10:00:00.000Z';
export const T0_MS = Date.parse(T0);

/** What one line becomes, as a fresh file's first line. */
export function outcomeOf(line: LogLine): LineOutcome {
  return new LineNormalizer().normalize(typeof line === 'string' ? line : JSON.stringify(line));
}

/** The single record one line yields; fails the test when it yields anything else. */
export function recordOf(line: LogLine): NormalizedRecord {
  const out = outcomeOf(line);
  if (out.type !== 'records') throw new Error(`expected a record, got ${JSON.stringify(out)}`);
  if (out.records.length !== 1) throw new Error(`expected one record, got ${out.records.length}`);
  return out.records[0]!;
}

export function rejectionOf(line: LogLine): string {
  const out = outcomeOf(line);
  // A line on its own: no line before it made its stream a stateless request's, so its record that would inherit is not read.
  if (out.type === 'records' && out.inheriting?.specs === 1) return missingField(out.records[0]!.kind, 'session');
  if (out.type !== 'rejected') throw new Error(`expected a rejection, got ${JSON.stringify(out)}`);
  return out.reason;
}

const open: Db[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Ingests in-memory files (name → lines, in argument order) and derives the timeline. */
export async function ingestFiles(files: Record<string, LogLine[]>, opts: { db?: string } = {}): Promise<Workspace> {
  return ingestSources(Object.entries(files).map(([name, lines]) => logSource(lines, name)), opts);
}

export async function ingestLines(lines: LogLine[]): Promise<Workspace> {
  return ingestFiles({ 'server.ndjson': lines });
}

export async function ingestSources(sources: Source[], opts: { db?: string } = {}): Promise<Workspace> {
  const ws = await loadWorkspace(sources, opts);
  open.push(ws.db);
  deriveTimeline(ws.db);
  return ws;
}

/** A source whose bytes arrive in exactly these chunks, opened as stdin and files are (gzip detected). */
export function chunkSource(chunks: (Buffer | string)[], name = 'chunks.ndjson'): Source {
  return { name, path: null, open: () => gunzipIfNeeded(Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)))) };
}

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'resumescope-ingest-'));
  dirs.push(d);
  return d;
}

export function track(db: Db): Db {
  open.push(db);
  return db;
}

export function rows<T = Record<string, unknown>>(db: Db, sql: string, ...params: unknown[]): T[] {
  return db.prepare(sql).all(...params) as T[];
}

/** NDJSON text of these lines, newline-terminated. */
export function ndjson(lines: LogLine[]): string {
  return lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
}
