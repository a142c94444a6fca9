import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { folderContents, generationsOldestFirst } from './folders.js';

/** An input the reader can open: a file, a folder's member, or stdin. */
export interface Source {
  /** As shown in reports and evidence (`-` reads as `<stdin>`). */
  name: string;
  path: string | null;
  open(): Readable;
}

export class InputError extends Error {}

export interface ExpandOptions {
  /** Read subfolders too, depth first (read/folders.ts). */
  recursive?: boolean;
  /** A folder's `*.csv` files are read too (`--csv`). */
  csv?: boolean;
  stdin?: () => Readable;
}

/** A folder's subfolders holding log files that were not read: the caller says so. */
export interface UnreadSubfolders {
  folder: string;
  subfolders: string[];
}

/** Expands PATH arguments: files, folders (their log files, in reading order), or `-` for stdin. */
export function expandPaths(paths: string[], stdin: () => Readable = () => process.stdin): Source[] {
  return expandInputs(paths, { stdin }).sources;
}

/** expandPaths, and each folder's subfolders left unread (without `recursive`). */
export function expandInputs(paths: string[], opts: ExpandOptions = {}): { sources: Source[]; unread: UnreadSubfolders[]; unlisted: UnlistedFiles[] } {
  const stdin = opts.stdin ?? (() => process.stdin);
  const out: Source[] = [];
  const unread: UnreadSubfolders[] = [];
  const unlisted: UnlistedFiles[] = [];
  /** Where the files named one by one are in `out`: a rotated log's generations among them are read oldest first. */
  const named: number[] = [];
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
    if (!st.isDirectory()) {
      named.push(out.length);
      out.push(fileSource(p));
      continue;
    }
    let found;
    try {
      found = folderContents(p, { recursive: opts.recursive ?? false, csv: opts.csv === true, unlisted: true });
    } catch (err) {
      out.push(unreadableSource(p, `cannot read folder (${whyUnreadable(err)})`));
      continue;
    }
    if (found.files.length === 0 && found.unlistable.length === 0) throw new InputError(noLogFiles(p, found.unread));
    out.push(...found.files.map(folderMember));
    out.push(...found.unlistable.map((u) => unreadableSource(u.path, `cannot read folder (${whyUnreadable(u.why)})`)));
    if (found.unread.length > 0) unread.push({ folder: p, subfolders: found.unread });
    if (found.unlisted.length > 0) unlisted.push({ folder: p, files: found.unlisted });
  }
  const ordered = generationsOldestFirst(named.map((i) => out[i]!), (s) => s.path!);
  named.forEach((place, k) => (out[place] = ordered[k]!));
  return { sources: out, unread, unlisted };
}

/** A folder's files that read as logs but were not read, for their name (folders.ts, startsAsALog). */
export interface UnlistedFiles {
  folder: string;
  files: string[];
}

/** "2 files that look like logs were not read (pod.txt, mcp.out)": a folder's log files go by their names. */
export function unlistedFilesNote(u: UnlistedFiles): string {
  const n = u.files.length;
  const shown = n > 5 ? `${names(u.files.slice(0, 5))} and ${n - 5} more` : names(u.files);
  return `${u.folder}: ${n === 1 ? '1 file that looks like a log was' : `${n} files that look like logs were`} not read (${shown}): a folder's *.ndjson, *.jsonl, *.log and *.json files are; name ${n === 1 ? 'it' : 'them'} to read ${n === 1 ? 'it' : 'them'}`;
}

/**
 * Why a folder gives nothing to read (`analyze`: a log file plain, rotated or gzipped) or to follow
 * (`watch`: a live one), and where its logs lie instead.
 */
export function noLogFiles(folder: string, unread: string[], to: 'read' | 'follow' = 'read'): string {
  const none = `${folder}: folder holds no *.ndjson, *.jsonl, *.log or *.json ${to === 'read' ? 'log files (plain, rotated or .gz)' : 'files to follow'}`;
  return unread.length === 0 ? none : `${none} of its own; ${subfoldersThatDo(unread)}`;
}

/** "its subfolders a, b do: name them, or pass --recursive": where a folder's logs lie instead. */
function subfoldersThatDo(unread: string[]): string {
  const one = unread.length === 1;
  return `${one ? 'its subfolder' : 'its subfolders'} ${names(unread)} ${one ? 'does' : 'do'}: name ${one ? 'it' : 'them'}, or pass --recursive`;
}

/** A folder's subfolders that hold logs and were not read: an export split per node must not lose nodes unsaid. */
export function unreadSubfoldersNote(u: UnreadSubfolders): string {
  const n = u.subfolders.length;
  return `${u.folder}: ${n === 1 ? '1 subfolder' : `${n} subfolders`} with log files not read (${names(u.subfolders)}): name ${n === 1 ? 'it' : 'them'} too, or pass --recursive`;
}

const names = (folders: string[]): string => folders.map((f) => basename(f)).join(', ');

const ERRNO_WORDS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ELOOP: 'a loop of symbolic links',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a folder',
  ENAMETOOLONG: 'name too long',
};

/** Why a path cannot be read, in words: `ENOENT: no such file or folder`. */
export function whyUnreadable(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === undefined) return String(err);
  return ERRNO_WORDS[code] ? `${code}: ${ERRNO_WORDS[code]}` : code;
}

/** A path that cannot be read: opening it fails with why, so ingest counts it unusable and goes on. */
function unreadableSource(path: string, why: string): Source {
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

/**
 * A folder's log-named member. One that is no regular file (a log shipper's FIFO or socket named `*.log`) is
 * unusable, said so: opened, a FIFO blocks until a writer comes, and the run hung without a word. A file
 * named on the command line is read whatever it is (`analyze <(zcat x.gz)` is a FIFO).
 */
function folderMember(path: string): Source {
  let st;
  try {
    st = statSync(path);
  } catch {
    return fileSource(path); // its open says why (a symbolic link's loop, a file gone)
  }
  if (st.isFile()) return fileSource(path);
  const what = st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a file';
  return unreadableSource(path, `not a regular file (${what}): a folder's members are read only when they are files; name it to read it`);
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
