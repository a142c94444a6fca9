import { createHash, type Hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { LineAssembler, textPreview, type InputLine } from './lines.js';
import { isFolder } from './folders.js';
import { appendAll } from '../model/arrays.js';

// Follows log files the way `tail -F` does: appended lines as they arrive; a
// file renamed away (rotation) is read to its end, and on for as long as its
// writer goes on writing to it (ROTATION_GRACE_MS), while the new file at the
// path is read from its start; a file truncated in place (copytruncate) is read
// again from its start; a path that does not exist yet is waited for; and
// stdin. fs.watch wakes the follower at once where the filesystem reports
// changes, and a bounded poll catches what it misses (network and overlay
// filesystems). When the run stops, each file read to its end gives its
// unterminated last line, as a whole file read once does.

/**
 * What the follower saw. Every file generation (the first file at a path, each
 * file after a rotation or truncation) is its own source with its own name and
 * line numbers, so evidence file:line stays true after the path changed.
 */
export type FollowEvent =
  /**
   * `through`: for a file's complete lines, the bytes from its start through the last one's newline (how many,
   * their hash, the lines they hold) and its first bytes (`first`, up to HEAD_BYTES): what a store of these lines
   * holds of the file, so that a later ingest of the file, grown or not, can tell that it begins with them.
   */
  | { type: 'lines'; source: string; lines: InputLine[]; through?: LinesThrough }
  /**
   * The source gets no more lines: its file was replaced or truncated, stdin ended, or the run stopped
   * (`stopped`: the file had been read to its end). `sha256`: the content hash of the whole file, where the
   * source is every byte of a file as it stands (for a file truncated under it, every byte read before), as ingest hashes a file.
   */
  | { type: 'end'; source: string; why: EndReason; sha256?: string }
  /**
   * The path no longer holds the source's file (renamed away by a rotation), though its writer may still
   * write to it, so its lines go on until its `end`: from now on its lines are no longer read at the path.
   */
  | { type: 'moved'; source: string };

export type EndReason = 'rotated' | 'truncated' | 'eof' | 'stopped';

export interface LinesThrough {
  bytes: number;
  lines: number;
  sha256: string;
  first: Buffer;
}

export interface FollowOptions {
  signal: AbortSignal;
  /** How often files are checked when fs.watch stays silent (default 250 ms). */
  pollMs?: number;
  /** Read for `-` (default process.stdin). */
  stdin?: Readable;
  /** Most bytes read from one file before the batch is handed over (default 4 MiB). */
  maxBatchBytes?: number;
  /**
   * The files to follow now, asked again at most every `discoverMs` (default 1 s): a path it names
   * for the first time is followed from its start (a followed folder's new file: a pod a rolling
   * update started). Paths it no longer names are still followed.
   */
  discover?: () => string[];
  discoverMs?: number;
  /**
   * The folders `discover` lists (present or not yet): a new entry in one, where fs.watch reports it, calls
   * for `discover` at once (at most every DISCOVER_SOON_MS) rather than at the next `discoverMs`.
   */
  discoverIn?: string[];
  /** How long a file renamed away is read on after it last grew (default ROTATION_GRACE_MS). */
  rotationGraceMs?: number;
}

export const STDIN_NAME = '<stdin>';
const DEFAULT_POLL_MS = 250;
const DEFAULT_DISCOVER_MS = 1000;
/**
 * logrotate's default renames the file, creates a new one, then tells the server to reopen (postrotate): until it
 * does, the server writes on through its open descriptor into the renamed file. That file is read on until it has
 * not grown for this long, and at most ROTATION_DRAIN_MAX_MS: a writer that never reopens its file writes to the
 * rotated one for good, which `analyze` on the folder reads.
 */
const ROTATION_GRACE_MS = 2_000;
const ROTATION_DRAIN_MAX_MS = 30_000;
/**
 * The first bytes of a followed file, read again at each check: copytruncate truncates the file in place, and a
 * writer that writes more than was read before the next check leaves it longer than ever, so its size alone does
 * not tell (GNU tail has the same blind spot). Changed first bytes do.
 */
const HEAD_BYTES = 1024;
/** Least time between two discoveries that fs.watch called for: a folder's other files may change often. */
const DISCOVER_SOON_MS = 100;

/** The source name of a file generation: the path itself, then marked by what replaced the previous one. */
function generationName(path: string, generation: number, why: 'rotated' | 'truncated' | null): string {
  return generation === 0 || why === null ? path : `${path} (${why} ${generation})`;
}

/**
 * A generation's name once its file is no longer at the path (renamed away by a rotation, or truncated): its
 * evidence quoted after that must not read as a line of the file the path holds now.
 */
export function awayName(source: string, why: 'rotated' | 'truncated'): string {
  return `${source} (${why} away)`;
}

/** The mark generationName puts after the path of every generation but the first. */
const GENERATION_MARK = String.raw` \((?:rotated|truncated) \d+\)`;
const MARK_ALONE = new RegExp(`^${GENERATION_MARK}$`);
const ENDS_IN_MARK = new RegExp(`${GENERATION_MARK}$`);

/** Whether `source` is one of the generations of the file followed at `path` (generationName's inverse). */
export function isGenerationOf(source: string, path: string): boolean {
  return source === path || (source.startsWith(`${path} (`) && MARK_ALONE.test(source.slice(path.length)));
}

/** The path a source's file was followed at (generationName's path). */
export function followedPath(source: string): string {
  return source.replace(ENDS_IN_MARK, '');
}

/** Whether `source` names a generation after the first (`path (rotated 1)`), not the file at its path. */
export function isLaterGeneration(source: string): boolean {
  return ENDS_IN_MARK.test(source);
}

/** Follows `-` (stdin) and file paths until the signal aborts; yields batches of complete lines. */
export async function* follow(paths: string[], opts: FollowOptions): AsyncGenerator<FollowEvent> {
  const pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
  const maxBatch = opts.maxBatchBytes ?? 4 * 1024 * 1024;
  const { signal } = opts;
  const wake = new Wakeup();
  const grace = { graceMs: opts.rotationGraceMs ?? ROTATION_GRACE_MS, maxMs: Math.max(opts.rotationGraceMs ?? 0, ROTATION_DRAIN_MAX_MS) };
  const files = [...new Set(paths.filter((p) => p !== '-'))].map((p) => new FollowedFile(p, grace));
  const stdin = paths.includes('-') ? new FollowedStdin(opts.stdin ?? process.stdin, () => wake.kick()) : undefined;
  const watchers = watchDirectories(files, () => wake.kick());
  const poll = setInterval(() => wake.kick(), pollMs);
  const followed = new Set(files.map((f) => f.path));
  const discoverMs = opts.discoverMs ?? DEFAULT_DISCOVER_MS;
  let discoveredAt = Date.now();
  // Once soon after the start too: a folder may have appeared, or got files, between the caller's listing and the watches.
  let discoverSoon = true;
  const folderWatch = new FolderWatch(opts.discover === undefined ? [] : (opts.discoverIn ?? []), (path, folderItself) => {
    if (!folderItself && followed.has(path)) return; // an append to a file followed already
    discoverSoon = true;
    wake.kick();
  });
  let soonTimer: NodeJS.Timeout | undefined;
  /** A discovery called for within DISCOVER_SOON_MS of the last one waits out the rest, woken by a timer (the poll may be slow). */
  const wakeForSoon = (inMs: number) => {
    if (soonTimer !== undefined) return;
    soonTimer = setTimeout(() => {
      soonTimer = undefined;
      wake.kick();
    }, inMs);
  };
  const discover = () => {
    if (opts.discover === undefined) return;
    const since = Date.now() - discoveredAt;
    if (since < discoverMs && !(discoverSoon && since >= DISCOVER_SOON_MS)) {
      if (discoverSoon) wakeForSoon(DISCOVER_SOON_MS - since);
      return;
    }
    discoveredAt = Date.now();
    // A folder that just appeared may have got files before its own watch was in place: asked again soon.
    discoverSoon = folderWatch.update();
    if (discoverSoon) wakeForSoon(DISCOVER_SOON_MS);
    for (const p of opts.discover()) {
      if (followed.has(p)) continue;
      followed.add(p);
      const f = new FollowedFile(p, grace);
      files.push(f);
      watchers.push(...watchDirectories([f], () => wake.kick()));
    }
  };
  const onAbort = () => wake.kick();
  signal.addEventListener('abort', onAbort);
  /** Sources whose lines read were not all handed over when the run stopped: their last line is not the file's. */
  const cut = new Set<string>();
  try {
    run: while (!signal.aborted) {
      const events: FollowEvent[] = [];
      let more = false;
      discover();
      const now = Date.now();
      for (const f of files) more = f.check(events, maxBatch, now) || more;
      if (stdin) appendAll(events, stdin.drain());
      for (const [i, e] of events.entries()) {
        if (signal.aborted) {
          for (const rest of events.slice(i)) cut.add(rest.source);
          break run;
        }
        yield e;
      }
      // A file read only up to the batch cap goes on at once; otherwise wait for a change or the poll.
      if (!more && !signal.aborted) await wake.wait();
    }
    // The end of the run is the end of each file read as far as it went: its unterminated last line is a line,
    // as analyze reads it. The consumer goes on reading after it aborted, to the generator's end.
    const last: FollowEvent[] = [];
    for (const f of files) f.stop(last, cut);
    if (stdin) appendAll(last, stdin.stop(cut));
    for (const e of last) yield e;
  } finally {
    signal.removeEventListener('abort', onAbort);
    clearInterval(poll);
    clearTimeout(soonTimer);
    for (const w of watchers) w.close();
    folderWatch.close();
    for (const f of files) f.close();
    stdin?.close();
  }
}

/** Coalesces wake-ups: any number of kicks while nobody waits make one. */
class Wakeup {
  private kicked = false;
  private resolve: (() => void) | undefined;

  kick(): void {
    if (this.resolve) {
      const r = this.resolve;
      this.resolve = undefined;
      r();
    } else {
      this.kicked = true;
    }
  }

  wait(): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((r) => (this.resolve = r));
  }
}

/** Watches the folders (a rename or a new file shows there, not on the file), where the platform can. */
function watchDirectories(files: FollowedFile[], onChange: () => void): FSWatcher[] {
  const byDir = new Map<string, Set<string>>();
  for (const f of files) {
    const names = byDir.get(dirname(f.path)) ?? new Set<string>();
    names.add(basename(f.path));
    byDir.set(dirname(f.path), names);
  }
  const out: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || names.has(String(name))) onChange();
      });
      // A watch error (folder removed, too many watches) leaves the poll in charge.
      w.on('error', () => w.close());
      out.push(w);
    } catch {
      // No folder yet, or no inotify: the poll covers it.
    }
  }
  return out;
}

/**
 * Watches the folders a discovery lists, so that a file created in one is found at once: each folder itself
 * where it exists, else its parent for the folder's name (a folder that does not exist yet). `onEntry` gets the
 * path of the entry that changed. Without fs.watch, the discovery's own interval covers it.
 */
class FolderWatch {
  private readonly watching = new Map<string, { w: FSWatcher; parent: boolean }>();

  constructor(
    private readonly folders: string[],
    /** `folderItself`: the folder appeared (or changed) at its path, rather than an entry in it. */
    private readonly onEntry: (path: string, folderItself: boolean) => void,
  ) {
    this.update();
  }

  /** Moves each watch from a parent onto its folder once the folder exists; true when one moved. */
  update(): boolean {
    let moved = false;
    for (const folder of this.folders) {
      const now = this.watching.get(folder);
      if (now !== undefined && !now.parent) continue;
      // Only a folder: a path given before it existed may appear as a file, whose own watch would name it again
      // under itself. Appends are 'change' events: only an entry made or removed ('rename') can be a new file.
      const own = isFolder(folder) ? this.watch(folder, (name, event) => event === 'rename' && this.onEntry(join(folder, name), false)) : undefined;
      if (own !== undefined) {
        moved ||= now !== undefined;
        now?.w.close();
        this.watching.set(folder, { w: own, parent: false });
        continue;
      }
      if (now !== undefined) continue;
      const parent = this.watch(dirname(folder), (name, event) => {
        if (event === 'rename' && name === basename(folder)) this.onEntry(folder, true);
      });
      if (parent !== undefined) this.watching.set(folder, { w: parent, parent: true });
    }
    return moved;
  }

  close(): void {
    for (const { w } of this.watching.values()) w.close();
    this.watching.clear();
  }

  private watch(dir: string, onName: (name: string, event: string) => void): FSWatcher | undefined {
    try {
      const w = watch(dir, { persistent: false }, (event, name) => {
        if (name !== null) onName(String(name), event);
      });
      w.on('error', () => w.close());
      return w;
    } catch {
      return undefined;
    }
  }
}

interface OpenFile {
  fd: number;
  dev: number;
  ino: number;
  pos: number;
  name: string;
  lines: LineAssembler;
  /** The file's first bytes as read (up to HEAD_BYTES): read again at each check, they tell a file truncated and rewritten. */
  head: Buffer;
  /** Every byte read, from the first: the content hash ingest would give the file, once it is read to its end. */
  hash: Hash;
  /** `hash` as it stood after the last newline read, at offset `linesEnd`: the bytes of the complete lines. */
  linesHash: Hash | undefined;
  linesEnd: number;
  /**
   * When a read last found bytes written after the file had been read to its end (ms; 0: none yet): a writer
   * this recent may be in the middle of the last line. What the file held when first read says nothing of that.
   */
  grewAt: number;
  caughtUp: boolean;
}

/**
 * At the run's stop, a file that grew this recently is taken as still being written: its unterminated
 * last line may be half a line (a block-buffered writer flushes 4-8 KiB at a time).
 */
const STILL_WRITING_MS = 1000;
const HALF_WRITTEN = `unterminated at the stop, its file written to within ${STILL_WRITING_MS} ms before: maybe half a line (analyze reads it once the writer is done)`;

/** A file renamed away, read on while its writer may still write to it (how recently it grew: the file's grewAt). */
interface Draining {
  file: OpenFile;
  /** When it was renamed away. */
  since: number;
}

class FollowedFile {
  private current: OpenFile | undefined;
  private draining: Draining[] = [];
  private generation = -1;
  /** Why the next file at the path replaces the last one, where opening it failed at once (gone between a stat and the open). */
  private replacing: 'rotated' | 'truncated' | null = null;
  private readonly buf = Buffer.allocUnsafe(64 * 1024);
  private readonly headBuf = Buffer.allocUnsafe(HEAD_BYTES);

  constructor(
    readonly path: string,
    private readonly grace: { graceMs: number; maxMs: number },
  ) {}

  /** Reads what is new into `out`; true when the batch cap stopped it before the end of a file. */
  check(out: FollowEvent[], maxBytes: number, now = Date.now()): boolean {
    let more = this.drain(out, maxBytes, now);
    let cur = this.current;
    if (cur === undefined) {
      // A generation after the first keeps its name apart from the one it replaced, even where its open had to wait.
      cur = this.open(this.replacing);
      if (cur === undefined) return more;
    }
    let size: number;
    try {
      size = fstatSync(cur.fd).size;
    } catch {
      size = cur.pos;
    }
    if (size < cur.pos || this.headChanged(cur)) {
      // Truncated in place: what was before is gone; the new content starts at 0.
      this.finish(cur, out, 'truncated');
      cur = this.open('truncated');
      if (cur === undefined) return more;
    }
    if (this.read(cur, out, maxBytes)) return true;
    // Read to the end: is the path still this file? A rotation renames it away and creates a new one.
    const named = statOrUndefined(this.path);
    if (named !== undefined && (named.ino !== cur.ino || named.dev !== cur.dev)) {
      // Its writer may not have reopened yet: the renamed file is read on (drain) beside the new one.
      out.push({ type: 'moved', source: cur.name });
      this.draining.push({ file: cur, since: now });
      this.current = undefined;
      const next = this.open('rotated');
      if (next !== undefined) more = this.read(next, out, maxBytes) || more;
    }
    return more;
  }

  /**
   * The run stopped: each file read to its end (and whose lines were all handed over, not `cut`) gives its
   * unterminated last line, its end and its content hash.
   */
  stop(out: FollowEvent[], cut: ReadonlySet<string>): void {
    for (const d of this.draining.splice(0)) this.finish(d.file, out, 'rotated', cut.has(d.file.name));
    if (this.current !== undefined) this.finish(this.current, out, 'stopped', cut.has(this.current.name));
  }

  close(): void {
    for (const d of this.draining.splice(0)) closeQuietly(d.file.fd);
    if (this.current) closeQuietly(this.current.fd);
    this.current = undefined;
  }

  /** Reads on in the files renamed away; each is done once it has not grown for the grace period (or after the bound). */
  private drain(out: FollowEvent[], maxBytes: number, now: number): boolean {
    let more = false;
    for (const d of [...this.draining]) {
      if (this.read(d.file, out, maxBytes)) {
        more = true;
        continue;
      }
      // It was read to its end before it was renamed (caught up), so any byte since counts as growth.
      const quietSince = Math.max(d.since, d.file.grewAt);
      if (now - quietSince >= this.grace.graceMs || now - d.since >= this.grace.maxMs) {
        this.draining.splice(this.draining.indexOf(d), 1);
        this.finish(d.file, out, 'rotated');
      }
    }
    return more;
  }

  private open(why: 'rotated' | 'truncated' | null): OpenFile | undefined {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      this.replacing = why; // not there (yet): tail -F waits for it
      return undefined;
    }
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeQuietly(fd);
      this.replacing = why;
      return undefined;
    }
    this.replacing = null;
    this.generation++;
    this.current = {
      fd, dev: st.dev, ino: st.ino, pos: 0, name: generationName(this.path, this.generation, why), lines: new LineAssembler(),
      head: Buffer.alloc(0), hash: createHash('sha256'), linesHash: undefined, linesEnd: 0, grewAt: 0, caughtUp: false,
    };
    return this.current;
  }

  /** Whether the first bytes read before are there no longer: the file was truncated and written again past where it was read. */
  private headChanged(cur: OpenFile): boolean {
    const n = cur.head.length;
    if (n === 0) return false;
    let got: number;
    try {
      got = readSync(cur.fd, this.headBuf, 0, n, 0);
    } catch {
      return false;
    }
    return got < n || !this.headBuf.subarray(0, n).equals(cur.head);
  }

  private read(cur: OpenFile, out: FollowEvent[], maxBytes: number): boolean {
    const lines: InputLine[] = [];
    let total = 0;
    let more = false;
    for (;;) {
      const n = readSync(cur.fd, this.buf, 0, this.buf.length, cur.pos);
      if (n === 0) {
        cur.caughtUp = true;
        break;
      }
      const chunk = this.buf.subarray(0, n);
      if (cur.head.length < HEAD_BYTES) cur.head = Buffer.concat([cur.head, chunk.subarray(0, HEAD_BYTES - cur.head.length)]);
      const newline = chunk.lastIndexOf(0x0a);
      if (newline < 0) cur.hash.update(chunk);
      else {
        cur.hash.update(chunk.subarray(0, newline + 1));
        cur.linesHash = cur.hash.copy();
        cur.linesEnd = cur.pos + newline + 1;
        cur.hash.update(chunk.subarray(newline + 1));
      }
      cur.pos += n;
      if (cur.caughtUp) cur.grewAt = Date.now();
      total += n;
      for (const l of cur.lines.push(chunk)) lines.push(l);
      if (total >= maxBytes) {
        more = true;
        break;
      }
    }
    if (lines.length > 0) out.push({ type: 'lines', source: cur.name, lines, ...(cur.linesHash !== undefined && { through: linesThrough(cur, lines) }) });
    return more;
  }

  /**
   * The file is done: read to its end where it still can be (a file renamed away; not one truncated, whose
   * bytes are gone, nor at the run's stop, which reads no further), its unterminated last line counts, as at
   * the end of any input, and, read whole, its content hash goes with its end. `cut`: its lines read were not
   * all handed over, so its last line is not the file's.
   */
  private finish(cur: OpenFile, out: FollowEvent[], why: 'rotated' | 'truncated' | 'stopped', cut = false): void {
    if (this.current === cur) this.current = undefined;
    if (why === 'rotated' && !cut) this.read(cur, out, Number.POSITIVE_INFINITY);
    // A file truncated under the follower (copytruncate) has its bytes gone, but the copy holds the bytes read where
    // they were all it held: their hash is the copy's, which an ingest of the copy then recognises. A copy with more
    // (written after the last read, or not read to its end) hashes otherwise, and is refused as a prefix.
    const whole = !cut && (why === 'truncated' || atEnd(cur));
    // A file whose lines read were not all handed over, or not read to its end at the stop, gets no end: the
    // consumer holds only its first lines (watch --db says so).
    if (!cut && (why !== 'stopped' || whole)) {
      // Stopped while the writer is still at it: its last line is kept and counted, rejected for what it may be, and
      // the file, not done, gets no content hash (an ingest of it once whole must not be taken for these bytes).
      const writing = why === 'stopped' && Date.now() - cur.grewAt < STILL_WRITING_MS;
      const last = cur.lines.end().map((l) => (writing && 'text' in l ? { line: l.line, error: HALF_WRITTEN, preview: textPreview(l.text) } : l));
      if (last.length > 0) out.push({ type: 'lines', source: cur.name, lines: last });
      out.push({ type: 'end', source: cur.name, why, ...(whole && !(writing && last.length > 0) && { sha256: cur.hash.digest('hex') }) });
    }
    closeQuietly(cur.fd);
  }
}

/** What the lines handed over so far hold of the file: every complete line read, the last of `lines` the last of them. */
function linesThrough(cur: OpenFile, lines: InputLine[]): LinesThrough {
  return { bytes: cur.linesEnd, lines: lines[lines.length - 1]!.line, sha256: cur.linesHash!.copy().digest('hex'), first: cur.head };
}

/** Whether every byte the file holds now has been read. */
function atEnd(cur: OpenFile): boolean {
  try {
    return fstatSync(cur.fd).size === cur.pos;
  } catch {
    return false;
  }
}

class FollowedStdin {
  private readonly lines = new LineAssembler();
  private pending: InputLine[] = [];
  private ended = false;
  private reported = false;
  private readonly onData = (chunk: Buffer | string) => {
    appendAll(this.pending, this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    this.onChange();
  };
  private readonly onEnd = () => {
    appendAll(this.pending, this.lines.end());
    this.ended = true;
    this.onChange();
  };

  constructor(
    private readonly input: Readable,
    private readonly onChange: () => void,
  ) {
    input.on('data', this.onData);
    input.once('end', this.onEnd);
    // A broken pipe ends the input like EOF does; it must not take the process down.
    input.once('error', this.onEnd);
  }

  drain(): FollowEvent[] {
    const out: FollowEvent[] = [];
    if (this.pending.length > 0) out.push({ type: 'lines', source: STDIN_NAME, lines: this.pending });
    this.pending = [];
    if (this.ended && !this.reported) {
      this.reported = true;
      out.push({ type: 'end', source: STDIN_NAME, why: 'eof' });
    }
    return out;
  }

  /** The run stopped: what came since the last drain, and the unterminated last line, unless lines read were left unhanded (`cut`). */
  stop(cut: ReadonlySet<string>): FollowEvent[] {
    if (cut.has(STDIN_NAME)) return [];
    if (!this.ended) appendAll(this.pending, this.lines.end());
    return this.drain();
  }

  close(): void {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onEnd);
    this.input.pause();
  }
}

function statOrUndefined(path: string): { ino: number; dev: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
