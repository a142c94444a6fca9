import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import type { LiveInputs } from '../live/inputs.js';
import { printable } from '../model/printable.js';
import { folderContents, isFolder, isLiveLogFileName } from '../read/folders.js';
import { STDIN_NAME } from '../read/follow.js';
import { noLogFiles, unreadSubfoldersNote } from '../read/sources.js';
import type { Db } from '../store/db.js';
import { sourceHeld } from '../store/source-names.js';
import { UsageError, type Io } from './io.js';

// What `watch` follows, from the paths it was given: files, stdin, folders' log files now and later.

/**
 * Following starts at the top of each file: a --db that holds these files from an earlier
 * run would get every record twice (and findings such as session-id-reuse for each).
 */
export function refuseFollowedBefore(db: Db, targets: string[], dbPath: string | undefined): void {
  const held = sourceHeld(db);
  for (const t of targets) {
    const name = t === '-' ? STDIN_NAME : t;
    if (held(name)) {
      throw new UsageError(`${dbPath}: already holds ${name} from an earlier run; following it again would store its lines twice. Use a new --db file.`);
    }
  }
}

/**
 * Files to follow: `-`, files (present or not), and the live log files a folder holds now (its
 * subfolders' too with --recursive; without it, those holding logs are named on stderr), then those
 * that appear in it later (folderDiscovery). A folder's rotated generations no longer grow: they are
 * read once, first (`rotated`, oldest first), and each rotation during the run is seen as it happens.
 */
export function followTargets(paths: string[], recursive: boolean, io: Io, inputs: LiveInputs): { targets: string[]; rotated: string[]; empty: string[] } {
  const out: string[] = [];
  const rotated: string[] = [];
  /** Folders with no log file yet. */
  const empty: string[] = [];
  for (const p of paths) {
    if (p !== '-' && isFolder(p)) {
      const { files, unread, unlistable } = folderContents(p, { recursive, which: 'all' });
      const live: string[] = [];
      for (const f of files) (isLiveLogFileName(basename(f)) ? live : rotated).push(f);
      // An empty folder is followed for the files that appear in it (folderDiscovery), as one that does not exist yet is;
      // one whose logs are all rotated generations, or in subfolders not read, is refused: they are what was meant.
      if (live.length === 0 && (files.length > 0 || unread.length > 0)) throw new UsageError(noLogFiles(p, unread, 'follow'));
      if (live.length === 0) empty.push(p);
      inputs.foundIn(p, files);
      if (unread.length > 0) io.err(`resumescope: ${printable(unreadSubfoldersNote({ folder: p, subfolders: unread }))}\n`);
      for (const u of unlistable) io.err(`resumescope: ${printable(`${u.path}: cannot read folder; not followed`)}\n`);
      out.push(...live);
    } else if (/\.gz$/i.test(p)) {
      throw new UsageError(`${p}: a compressed file cannot be followed as it grows; read it with resumescope analyze`);
    } else {
      out.push(p);
    }
  }
  return { targets: [...new Set(out)], rotated: [...new Set(rotated)], empty };
}

/**
 * A folder's live files as they are now: files (and, with -r, pod folders) that appear later are followed too.
 * A path that does not exist yet may become a folder (a pod's log folder before the pod starts): followed as
 * a file meanwhile, it is asked about as a folder too.
 */
export function folderDiscovery(paths: string[], recursive: boolean, inputs: LiveInputs): { discover?: () => string[]; discoverIn?: string[] } {
  const folders = paths.filter((p) => p !== '-' && (isFolder(p) || !existsSync(p)));
  if (folders.length === 0) return {};
  return {
    discoverIn: folders,
    discover: () =>
      folders.flatMap((f) => {
        try {
          if (!isFolder(f)) return [];
          // Asked every second: no walk of the subfolders it does not read, whose note was given at the start.
          const files = folderContents(f, { recursive, which: 'live', unread: false }).files;
          inputs.foundIn(f, files);
          return files;
        } catch {
          return []; // the folder went away: what it held is still followed
        }
      }),
  };
}
