import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, sep } from 'node:path';
import type { Db } from '../../store/db.js';
import { lineTextReader, STORED_LINE_COLUMNS, type StoredLine } from '../../store/line-text.js';
import type { LineRef } from '../dashboardState.js';

// `o` in the dashboard: the log line in the user's editor or pager, at its
// line. A plain file is opened where it is; a compressed file, stdin, or a file
// rotated away since is not there to open, so the lines the store kept around
// that line are written to a temporary file and that is opened instead. Those
// files hold log text: readable by the user alone (0600, in a 0700 folder), and
// removed with their folder when the dashboard ends (dispose, or at the
// process's exit): an editor that forks (`code` without -w) may still read one
// after the viewer returned, so not before.

/** Runs a command on the terminal and waits for it; the status, or an error when it could not start. */
export type Spawner = (command: string, args: string[]) => { status: number | null; error?: Error };

export interface LineOpenerOptions {
  env?: NodeJS.ProcessEnv;
  spawn?: Spawner;
  /** Folder for context files; a fresh one under the system's temporary folder by default. */
  tmpDir?: () => string;
  /** A source whose file at that path was since replaced (rotated, truncated): its lines come from the store. */
  replaced?: (file: string) => boolean;
}

/** Lines either side of the target written to a context file. */
const CONTEXT_LINES = 20;

/** The program and its arguments that show `file` at `line`: $VISUAL or $EDITOR as `+LINE file`, else $PAGER (less: `+LINEg`). */
export function viewerCommand(env: NodeJS.ProcessEnv, file: string, line: number): { command: string; args: string[] } {
  const editor = env.VISUAL || env.EDITOR;
  const pager = env.PAGER || 'less';
  const program = editor || pager;
  const isLess = !editor && /(^|\/)less(\s|$)/.test(pager.trim().split(/\s+/)[0] ?? '');
  const jump = isLess ? `+${line}g` : `+${line}`;
  // Through sh so that EDITOR="code -w" works; the file and line are positional arguments, never parsed as shell text.
  // Nor as the viewer's own: a log named `+!touch x;.ndjson` is an Ex command to vim, `-c…` an option, so a
  // relative name is given as ./name (the name is whatever a folder of logs holds).
  const path = isAbsolute(file) ? file : `.${sep}${file}`;
  return { command: 'sh', args: ['-c', `${program} "$1" "$2"`, 'sh', jump, path] };
}

function defaultSpawn(command: string, args: string[]): { status: number | null; error?: Error } {
  // Keys come from the terminal even when stdin carries the log (watch -).
  let tty: number | undefined;
  if (!process.stdin.isTTY) {
    try {
      tty = openSync('/dev/tty', 'r');
    } catch {
      tty = undefined;
    }
  }
  try {
    const r = spawnSync(command, args, { stdio: [tty ?? 'inherit', 'inherit', 'inherit'] });
    return { status: r.status, ...(r.error && { error: r.error }) };
  } finally {
    if (tty !== undefined) closeSync(tty);
  }
}

function isPlainFile(file: string): boolean {
  try {
    return !/\.gz$/i.test(file) && existsSync(file) && statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The stored lines of `ref.file` around `ref.line` (records and rejected lines), in line order. */
export function storedContext(db: Db, ref: LineRef, around = CONTEXT_LINES): { line: number; text: string }[] {
  const read = lineTextReader(db);
  const rows = db
    .prepare(
      `SELECT line, raw, sourceId, offset, bytes FROM (
         SELECT r.line AS line, ${STORED_LINE_COLUMNS}
         FROM records r JOIN sources s ON s.id = r.source_id
         WHERE s.name = ? AND r.line BETWEEN ? AND ? AND (r.raw IS NOT NULL OR r.line_offset IS NOT NULL)
         UNION SELECT j.line, j.text, j.source_id, NULL, NULL FROM rejected j JOIN sources s ON s.id = j.source_id WHERE s.name = ? AND j.line BETWEEN ? AND ?
       ) GROUP BY line ORDER BY line`,
    )
    .all(ref.file, ref.line - around, ref.line + around, ref.file, ref.line - around, ref.line + around) as (StoredLine & { line: number })[];
  return rows.flatMap((r) => {
    const text = read(r);
    return text === undefined ? [] : [{ line: r.line, text }];
  });
}

/**
 * Writes what the store holds around the line to a file, each line prefixed with its line
 * number in the log; returns the file and where the target line is in it, or why not.
 */
function writeContext(db: Db, ref: LineRef, dir: string): { file: string; line: number } | string {
  const lines = storedContext(db, ref);
  const at = lines.findIndex((l) => l.line === ref.line);
  if (at < 0) return `${ref.file}:${ref.line} cannot be opened: the file is not on disk and the store keeps no text for that line`;
  const header = `# ${ref.file}, lines ${lines[0]!.line}–${lines[lines.length - 1]!.line} as stored by resumescope (the file itself is compressed, stdin, or gone; ignored lines are not kept)`;
  const body = lines.map((l) => `${String(l.line).padStart(7)}  ${l.text}`);
  const file = join(dir, `${basename(ref.file).replace(/[^\w.-]+/g, '_')}-line-${ref.line}.txt`);
  writeFileSync(file, [header, ...body, ''].join('\n'), { mode: 0o600 });
  return { file, line: at + 2 };
}

/** The dashboard's `openLine`; `dispose` removes the temporary files it wrote (its own folder; not one `tmpDir` gave). */
export type LineOpener = ((ref: LineRef) => string | undefined) & { dispose(): void };

/** The dashboard's `openLine`: returns undefined when the viewer ran, else why the line could not be shown. */
export function lineOpener(db: Db, opts: LineOpenerOptions = {}): LineOpener {
  const env = opts.env ?? process.env;
  const spawn = opts.spawn ?? defaultSpawn;
  let dir: string | undefined;
  // A backstop for an exit that skips the caller's dispose (process.exit, a crash): the files hold log text.
  const removeDir = () => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  };
  const tmp =
    opts.tmpDir ??
    (() => {
      if (dir === undefined) {
        dir = mkdtempSync(join(tmpdir(), 'resumescope-'));
        process.once('exit', removeDir);
      }
      return dir;
    });
  const open = (ref: LineRef): string | undefined => {
    let target: { file: string; line: number };
    if (isPlainFile(ref.file) && !opts.replaced?.(ref.file)) {
      target = ref;
    } else {
      const written = writeContext(db, ref, tmp());
      if (typeof written === 'string') return written;
      target = written;
    }
    const { command, args } = viewerCommand(env, target.file, target.line);
    const r = spawn(command, args);
    if (r.error) return `could not run the viewer: ${r.error.message}`;
    if (r.status !== 0 && r.status !== null) return `the viewer exited with status ${r.status}`;
    return undefined;
  };
  return Object.assign(open, {
    dispose: () => {
      process.off('exit', removeDir);
      removeDir();
    },
  });
}
