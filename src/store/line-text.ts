import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Db } from './db.js';

// The text of a stored line: the copy the record holds (a --db file, stdin, a compressed file, a
// redacted line), else the bytes at its offset in its file, read again while the file is as it was
// ingested (same size and mtime). A file that changed or went away quotes nothing rather than a wrong line.

export interface StoredLine {
  raw: string | null;
  sourceId: number;
  offset: number | null;
  bytes: number | null;
}

/** The select list of a StoredLine from `records r`. */
export const STORED_LINE_COLUMNS = 'r.raw AS raw, r.source_id AS sourceId, r.line_offset AS offset, r.line_bytes AS bytes';

/** Reads stored lines' texts; remembers per source whether its file is still the one ingested. */
export function lineTextReader(db: Db): (line: StoredLine) => string | undefined {
  const sourceFile = db.prepare('SELECT path, size, mtime_ms FROM sources WHERE id = ?');
  const files = new Map<number, string | null>();
  const unchangedFile = (sourceId: number): string | null => {
    let path = files.get(sourceId);
    if (path === undefined) {
      const s = sourceFile.get(sourceId) as { path: string | null; size: number | null; mtime_ms: number | null } | undefined;
      path = s?.path != null && isUnchanged(s.path, s.size, s.mtime_ms) ? s.path : null;
      files.set(sourceId, path);
    }
    return path;
  };
  return (l) => {
    if (l.raw !== null) return l.raw;
    if (l.offset === null || l.bytes === null) return undefined;
    const path = unchangedFile(l.sourceId);
    return path === null ? undefined : readBytes(path, l.offset, l.bytes);
  };
}

function isUnchanged(path: string, size: number | null, mtimeMs: number | null): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && st.size === size && Math.trunc(st.mtimeMs) === mtimeMs;
  } catch {
    return false;
  }
}

function readBytes(path: string, offset: number, bytes: number): string | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(bytes);
      return readSync(fd, buf, 0, bytes, offset) === bytes ? buf.toString('utf8') : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
