import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * A log file's name: *.ndjson, *.jsonl, *.log or *.json, maybe gzipped, maybe a generation rotated away
 * as logrotate, Docker and the kubelet name them: `mcp.log.1`, `mcp.log.2.gz`, `mcp.log-20261207`,
 * `0.log.20261207-101500`. An export of a node's logs holds its history in those; read only the live
 * file, an incident review would miss everything before the last rotation, silently.
 */
const LOG_NAME = /^(.*\.(?:ndjson|jsonl|log|json))(?:[.-](\d[\d-]*))?(\.gz)?$/i;
/** With `--csv`, a console's CSV downloads are log files too (and only then: a folder may hold other tables). */
const LOG_OR_CSV_NAME = /^(.*\.(?:ndjson|jsonl|log|json|csv))(?:[.-](\d[\d-]*))?(\.gz)?$/i;

export function isLogFileName(name: string, csv = false): boolean {
  return (csv ? LOG_OR_CSV_NAME : LOG_NAME).test(name);
}

/** A log file that may still grow: no rotated generation's suffix, not compressed (what `watch` follows). */
export function isLiveLogFileName(name: string): boolean {
  const m = LOG_NAME.exec(name);
  return m !== null && m[2] === undefined && m[3] === undefined;
}

/** Which of a folder's log files to take: every one, or the live ones only. */
export type LogFiles = 'all' | 'live';

/** What reading a folder found: its log files in reading order, and what it could not read. */
export interface FolderContents {
  files: string[];
  /** Subfolders holding log files that were not read (not recursive): the user is told, nothing is lost unsaid. */
  unread: string[];
  /** Subfolders that could not be listed (recursive): each becomes an unusable input. */
  unlistable: { path: string; why: unknown }[];
  /**
   * Files of the folders read whose name is no log file's but whose first line reads as one (`kubectl logs >
   * pod.txt`, `mcp.out`): not read, and named in a note (with `unlisted`), so that none is left out unsaid.
   */
  unlisted: string[];
}

export interface FolderReading {
  recursive: boolean;
  /** Which log files to take (default all). */
  which?: LogFiles;
  /** Look for the subfolders holding logs that are not read (default true): a walk of each, for the note. */
  unread?: boolean;
  /** `*.csv` files are log files too (`--csv`). */
  csv?: boolean;
  /** Look for the files that read as logs but are not named as logs (default false): a read of each, for the note. */
  unlisted?: boolean;
}

/**
 * A folder's log files. Without `recursive`, its own members, and the subfolders that hold log files,
 * to be named in a note. With it, its members then each subfolder's, depth first, in name order.
 * Hidden entries (a leading dot: `.git`, an editor's swap folder) are never walked into. A folder
 * reached again through a symbolic link is read once.
 */
export function folderContents(folder: string, reading: FolderReading): FolderContents {
  const { recursive, which = 'all', unread = true, csv = false, unlisted = false } = reading;
  const isLog = which === 'all' ? (name: string) => isLogFileName(name, csv) : isLiveLogFileName;
  const out: FolderContents = { files: [], unread: [], unlistable: [], unlisted: [] };
  const seen = new Set<string>();
  const walk = (dir: string, top: boolean): void => {
    if (!firstVisit(dir, seen)) return;
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (err) {
      if (top) throw err;
      out.unlistable.push({ path: dir, why: err });
      return;
    }
    out.files.push(...inReadingOrder(entries.filter(isLog)).map((f) => join(dir, f)));
    if (unlisted) out.unlisted.push(...entries.filter((e) => !isLog(e) && !e.startsWith('.') && !isLogFileName(e, true)).sort().map((e) => join(dir, e)).filter(startsAsALog));
    for (const sub of subfolders(dir, entries)) {
      if (recursive) walk(sub, false);
      else if (unread && holdsLogFiles(sub, seen, isLog)) out.unread.push(sub);
    }
  };
  walk(folder, true);
  return out;
}

/**
 * Whether a file's first bytes read as a log line: a JSON object, or a line that starts with a date (a text
 * prefix, a container runtime's). Other files (a README, a config, a script) are what folders hold too.
 */
function startsAsALog(path: string): boolean {
  let fd: number | undefined;
  try {
    if (!statSync(path).isFile()) return false;
    fd = openSync(path, 'r');
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, n).toString('utf8').replace(/^\uFEFF/, '').trimStart();
    return text.startsWith('{') || /^\d{4}-\d{2}-\d{2}[T ]\d{2}:/.test(text);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function subfolders(dir: string, entries: string[]): string[] {
  return entries
    .filter((e) => !e.startsWith('.') && isFolder(join(dir, e)))
    .sort()
    .map((e) => join(dir, e));
}

/** Whether the path is a folder now (false where it cannot be told). */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Marks a folder visited by its real path: false if it was already. */
function firstVisit(dir: string, seen: Set<string>): boolean {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    real = dir;
  }
  if (seen.has(real)) return false;
  seen.add(real);
  return true;
}

/** Whether a log file lies anywhere below: stops at the first. Its own visits do not count as reads. */
function holdsLogFiles(dir: string, seen: ReadonlySet<string>, isLog: (name: string) => boolean): boolean {
  const visited = new Set(seen);
  const look = (d: string): boolean => {
    if (!firstVisit(d, visited)) return false;
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return false;
    }
    return entries.some(isLog) || subfolders(d, entries).some(look);
  };
  return look(dir);
}

/**
 * Names in reading order: by name, as ever, except that a rotated generation goes just before its
 * live file, the oldest first (`mcp.log.3`, `mcp.log.2.gz`, `mcp.log.1`, `mcp.log`; dated ones by
 * date), so a node's lines come in the order it wrote them: ties within one millisecond keep file order.
 */
export function inReadingOrder(names: string[]): string[] {
  return names
    .map((name) => ({ name, ...generationOf(name) }))
    .sort(oldestFirst)
    .map((n) => n.name);
}

/**
 * Files named one by one, in the order given, but for the generations of one rotated log (one folder, one
 * live file's name): those take the places they were given in, oldest first as a folder reads them. The
 * shell's `app.log*` gives app.log, app.log.1, app.log.2.gz, newest first, and ties within one millisecond
 * keep file order: read so, a close logged just before a takeover came after it.
 */
export function generationsOldestFirst<T>(files: readonly T[], pathOf: (file: T) => string): T[] {
  const places = new Map<string, number[]>();
  files.forEach((file, i) => {
    const path = pathOf(file);
    const log = resolve(dirname(path), generationOf(basename(path)).key);
    places.set(log, [...(places.get(log) ?? []), i]);
  });
  const out = files.slice();
  for (const at of places.values()) {
    if (at.length < 2) continue;
    const ordered = at
      .map((i) => {
        const name = basename(pathOf(files[i]!));
        return { i, name, ...generationOf(name) };
      })
      .sort(oldestFirst);
    at.forEach((place, k) => (out[place] = files[ordered[k]!.i]!));
  }
  return out;
}

type Generation = { name: string; key: string; rank: number; stamp: string };

const oldestFirst = (a: Generation, b: Generation): number => cmp(a.key, b.key) || a.rank - b.rank || cmp(a.stamp, b.stamp) || cmp(a.name, b.name);

/**
 * key: the live file's name (a name without a generation is its own key); rank: numbered generations
 * first, then dated, then the live file; stamp: orders generations of one rank, oldest first.
 */
function generationOf(name: string): { key: string; rank: number; stamp: string } {
  const m = LOG_NAME.exec(name);
  const gen = m?.[2];
  if (m === null || gen === undefined) return { key: name, rank: 2, stamp: '' };
  const numbered = /^\d{1,7}$/.test(gen);
  // A larger number is an older generation: padded and complemented, it sorts first.
  return { key: m[1]!, rank: numbered ? 0 : 1, stamp: numbered ? String(9_999_999 - Number(gen)).padStart(7, '0') : gen };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The pod a kubelet's log path names: `/var/log/pods/<namespace>_<pod>_<uid>/<container>/0.log` (any
 * generation of it), or the `/var/log/containers/<pod>_<namespace>_<container>-<id>.log` link to it.
 * Its records that name no node were written by that pod: one node per pod, as `kubectl --prefix` says.
 */
export function podOfLogPath(path: string): string | undefined {
  const p = path.replaceAll('\\', '/');
  return (POD_LOG_DIR.exec(p) ?? CONTAINER_LOG_LINK.exec(p))?.[1];
}

const POD_LOG_DIR = /(?:^|\/)[a-z0-9-]+_([a-z0-9.-]+)_[0-9a-f-]{8,}\/[a-z0-9-]+\/\d+\.log(?:[.-][\d-]+)?(?:\.gz)?$/;
const CONTAINER_LOG_LINK = /(?:^|\/)([a-z0-9.-]+)_[a-z0-9-]+_[a-z0-9-]+-[0-9a-f]{64}\.log$/;
