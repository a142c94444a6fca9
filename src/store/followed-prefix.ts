import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StoreError, type Db } from './db.js';

// A file `watch --db` followed is in the database as far as the follower read it: the first lines of a file that
// may have grown since, or that the run stopped before reading to its end. Its content hash (what makes an ingest
// of the same bytes add nothing) is known only for a file read to its end, so each followed source also keeps the
// bytes of its lines stored so far: how many, and their hash. An ingest of a file that begins with those bytes
// would store those lines a second time; it is refused, and told what to do instead. One key of `meta` per
// source, not a column: a database written before keeps none, and an older resumescope passes them over.

const KEY_PREFIX = 'followed_prefix:';

/** The complete lines of a followed file stored so far: the bytes through the last one's newline. */
export interface FollowedPrefix {
  bytes: number;
  lines: number;
  /** sha256 of those bytes. */
  sha256: string;
  /** sha256 of their first `headBytes`: most files are told apart by it without reading on. */
  head: string;
  headBytes: number;
}

/** The most of a prefix's first bytes its head hash covers. */
const HEAD_CHECK_BYTES = 1024;

/**
 * Keeps how far a followed source's stored lines go (in the caller's transaction, with those lines): `first` is
 * the file's first bytes as read (a head of up to HEAD_CHECK_BYTES of them is hashed).
 */
export function noteFollowedPrefix(db: Db, sourceId: number, through: { bytes: number; lines: number; sha256: string }, first: Buffer): void {
  const headBytes = Math.min(HEAD_CHECK_BYTES, through.bytes, first.length);
  const head = createHash('sha256').update(first.subarray(0, headBytes)).digest('hex');
  const prefix: FollowedPrefix = { bytes: through.bytes, lines: through.lines, sha256: through.sha256, head, headBytes };
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(`${KEY_PREFIX}${sourceId}`, JSON.stringify(prefix));
}

interface Held extends FollowedPrefix {
  name: string;
}

/**
 * Refuses an ingest of a file whose start the database holds from a followed source, unless the file is every
 * byte that source read (its content hash is then in the database: the ingest adds nothing). A file that
 * cannot be read is left to the ingest to say so.
 */
export function refuseHeldPrefixes(db: Db, paths: readonly string[]): void {
  const held = heldPrefixes(db);
  if (held.length === 0) return;
  const knownHash = db.prepare('SELECT 1 FROM sources WHERE sha256 = ?').pluck();
  for (const path of paths) {
    const match = matchingPrefix(path, held);
    if (match === undefined || knownHash.get(match.whole) !== undefined) continue;
    const { prefix } = match;
    throw new StoreError(
      `${path}: ${db.name} already holds its first ${prefix.lines} lines, which \`watch --db\` followed as ${prefix.name} ` +
        `before the file was read to its end or grew; ingesting it would store them twice. Ingest it into a new --db file, or analyze the file itself.`,
    );
  }
}

function heldPrefixes(db: Db): Held[] {
  const rows = db.prepare('SELECT m.value, s.name FROM meta m JOIN sources s ON m.key = ? || s.id').all(KEY_PREFIX) as { value: string; name: string }[];
  const out: Held[] = [];
  for (const r of rows) {
    try {
      const p = JSON.parse(r.value) as Partial<FollowedPrefix>;
      const numbers = [p.bytes, p.lines, p.headBytes].every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0);
      if (numbers && p.bytes! > 0 && p.headBytes! <= HEAD_CHECK_BYTES && typeof p.sha256 === 'string' && typeof p.head === 'string') {
        out.push({ bytes: p.bytes!, lines: p.lines!, sha256: p.sha256, head: p.head, headBytes: p.headBytes!, name: r.name });
      }
    } catch {
      // not ours to guess at
    }
  }
  return out;
}

/** The held prefix the file begins with (and the file's whole content hash), read in one pass; undefined for none. */
function matchingPrefix(path: string, held: Held[]): { prefix: Held; whole: string } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const head = Buffer.alloc(HEAD_CHECK_BYTES);
    const got = readSync(fd, head, 0, HEAD_CHECK_BYTES, 0);
    const headHash = new Map<number, string>();
    const candidates = held.filter((h) => {
      if (h.bytes > st.size) return false;
      const n = h.headBytes;
      if (n > got) return false;
      if (!headHash.has(n)) headHash.set(n, createHash('sha256').update(head.subarray(0, n)).digest('hex'));
      return headHash.get(n) === h.head;
    });
    if (candidates.length === 0) return undefined;
    // One read of the file: the hash at each candidate's length, then at the end.
    const ends = [...new Set(candidates.map((c) => c.bytes))].sort((a, b) => a - b);
    const at = new Map<number, string>();
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(1024 * 1024);
    let pos = 0;
    for (;;) {
      const next = ends.find((e) => e > pos);
      const want = next === undefined ? buf.length : Math.min(buf.length, next - pos);
      const n = readSync(fd, buf, 0, want, pos);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      pos += n;
      if (pos === next) at.set(pos, hash.copy().digest('hex'));
    }
    const whole = hash.digest('hex');
    const prefix = candidates.find((c) => at.get(c.bytes) === c.sha256);
    return prefix === undefined ? undefined : { prefix, whole };
  } finally {
    closeSync(fd);
  }
}
