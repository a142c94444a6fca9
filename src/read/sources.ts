import { closeSync, createReadStream, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** An input the reader can open: a file, a folder's member, or stdin. */
export interface Source {
  /** As shown in reports and evidence (`-` reads as `<stdin>`). */
  name: string;
  path: string | null;
  open(): Readable;
}

const LOG_FILE = /\.(ndjson|jsonl|log|json)(\.gz)?$/i;

export class InputError extends Error {}

/** Expands PATH arguments: files, folders (their log files, sorted), or `-` for stdin. */
export function expandPaths(paths: string[], stdin: () => Readable = () => process.stdin): Source[] {
  const out: Source[] = [];
  for (const p of paths) {
    if (p === '-') {
      out.push({ name: '<stdin>', path: null, open: () => gunzipIfNeeded(stdin()) });
      continue;
    }
    let st;
    try {
      st = statSync(p);
    } catch (err) {
      // One bad path must not cost the others their report: it is an unusable input (exit 2 after the rest).
      out.push(unreadableSource(p, `cannot read (${whyUnreadable(err)})`));
      continue;
    }
    if (st.isDirectory()) {
      let members: string[];
      try {
        members = readdirSync(p).filter((f) => LOG_FILE.test(f)).sort();
      } catch (err) {
        out.push(unreadableSource(p, `cannot read folder (${whyUnreadable(err)})`));
        continue;
      }
      if (members.length === 0) throw new InputError(`${p}: folder holds no *.ndjson, *.jsonl, *.log or .gz log files`);
      for (const f of members) out.push(fileSource(join(p, f)));
    } else {
      out.push(fileSource(p));
    }
  }
  return out;
}

const ERRNO_WORDS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ELOOP: 'a loop of symbolic links',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a folder',
  ENAMETOOLONG: 'name too long',
};

function whyUnreadable(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === undefined) return String(err);
  return ERRNO_WORDS[code] ? `${code}: ${ERRNO_WORDS[code]}` : code;
}

/** A path that cannot be read: opening it fails with why, so ingest counts it unusable and goes on. */
export function unreadableSource(path: string, why: string): Source {
  return {
    name: path,
    path,
    open: () => {
      const s = new PassThrough();
      process.nextTick(() => s.destroy(new Error(why)));
      return s;
    },
  };
}

export function fileSource(path: string): Source {
  return { name: path, path, open: () => gunzipIfNeeded(createReadStream(path)) };
}

/** gzip's magic bytes: how a compressed input is told, never by its name (exports get renamed). */
function isGzipHead(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Detects gzip by its magic bytes, not the file name: exports get renamed. */
export function gunzipIfNeeded(input: Readable): Readable {
  const out = new PassThrough();
  // The two magic bytes may arrive in separate chunks (a pipe can deliver one byte first).
  let head = Buffer.alloc(0);
  input.once('error', (e) => out.destroy(e));
  const onEnd = () => out.end(head);
  input.on('data', function first(chunk: Buffer) {
    head = Buffer.concat([head, chunk]);
    if (head.length < 2) return;
    input.off('data', first);
    input.off('end', onEnd);
    input.pause();
    if (isGzipHead(head)) {
      const gunzip = createGunzip();
      gunzip.once('error', (e) => out.destroy(new Error(`gzip: ${e.message}`)));
      gunzip.pipe(out);
      gunzip.write(head);
      input.pipe(gunzip);
    } else {
      out.write(head);
      input.pipe(out);
    }
    input.resume();
  });
  input.once('end', onEnd);
  return out;
}

/**
 * A regular file that is not gzip (its magic bytes, as gunzipIfNeeded decides), as it is now: the
 * lines read from it can be read again at their byte offsets while its size and mtime stay the same.
 * Undefined for stdin, compressed and special files, and anything that cannot be checked.
 */
export function plainFile(source: Source): { path: string; size: number; mtimeMs: number } | undefined {
  if (source.path === null) return undefined;
  try {
    const st = statSync(source.path);
    if (!st.isFile() || startsAsGzip(source.path)) return undefined;
    return { path: resolve(source.path), size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
  } catch {
    return undefined;
  }
}

/** A regular file that is gzip (its magic bytes, as gunzipIfNeeded decides); false for anything that cannot be read. */
export function isGzipFile(path: string): boolean {
  try {
    return statSync(path).isFile() && startsAsGzip(path);
  } catch {
    return false;
  }
}

function startsAsGzip(path: string): boolean {
  const head = Buffer.alloc(2);
  const fd = openSync(path, 'r');
  try {
    return isGzipHead(head.subarray(0, readSync(fd, head, 0, 2, 0)));
  } finally {
    closeSync(fd);
  }
}
