import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openScratchDb, ORPHAN_MIN_AGE_MS, removeOrphans, scratchFolder } from '../../src/store/scratch-db.js';

// A large one-off run keeps its timeline in a named scratch file (a GB at 3M lines). A run killed
// by a signal runs no exit handler: the next scratch database must reclaim what it left, and
// nothing else: not a folder whose pid is gone here but which is still written to (a run in another
// PID namespace, another container sharing /tmp).

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid no process has any more: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A folder holding these files, none of them changed for `ageMs` (a minute past the orphan age by default). */
function folder(name: string, files: string[], ageMs = ORPHAN_MIN_AGE_MS + 60_000): string {
  const path = join(dir, name);
  mkdirSync(path);
  for (const f of files) writeFileSync(join(path, f), 'x');
  for (const f of files) age(join(path, f), ageMs);
  age(path, ageMs);
  return path;
}

function age(path: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  utimesSync(path, then, then);
}

describe('scratch databases', () => {
  it("removes a dead run's folder, and keeps a live run's and any folder holding other files", () => {
    dir = mkdtempSync(join(tmpdir(), 'scratch-orphans-'));
    const dead = deadPid();
    const orphan = folder(`resumescope-scratch-${dead}-abc123`, ['timeline.db', 'timeline.db-wal', 'timeline.db-shm', 'spool-0.log', 'spool-12.log']);
    const emptyOrphan = folder(`resumescope-scratch-${dead}-def456`, []);
    const live = folder(`resumescope-scratch-${process.pid}-ghi789`, ['timeline.db']);
    const foreign = folder(`resumescope-scratch-${dead}-notes`, ['timeline.db', 'my-notes.txt']);
    const other = folder(`resumescope-${dead}-x`, ['timeline.db']);
    const notASpool = folder(`resumescope-scratch-${dead}-spoolish`, ['spool-a.log']);
    removeOrphans(dir);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(emptyOrphan)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(other)).toBe(true);
    expect(existsSync(notASpool)).toBe(true);
  });

  it("keeps a folder whose pid is gone here while anything in it changed within the orphan age (another container's live run)", () => {
    dir = mkdtempSync(join(tmpdir(), 'scratch-live-elsewhere-'));
    const dead = deadPid();
    const files = ['timeline.db', 'spool-0.log'];
    const fresh = folder(`resumescope-scratch-${dead}-fresh1`, files, 0);
    const beating = folder(`resumescope-scratch-${dead}-beat22`, files);
    age(beating, ORPHAN_MIN_AGE_MS - 60_000); // its heartbeat, a minute inside the age
    const spooling = folder(`resumescope-scratch-${dead}-spool3`, files);
    age(join(spooling, 'spool-0.log'), ORPHAN_MIN_AGE_MS - 60_000); // stdin still being copied
    const old = folder(`resumescope-scratch-${dead}-old444`, files);
    removeOrphans(dir);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(beating)).toBe(true);
    expect(existsSync(spooling)).toBe(true);
    expect(existsSync(old)).toBe(false);
  });

  it("touches a live run's folder while it lives, so that no other run takes it for an orphan", () => {
    dir = mkdtempSync(join(tmpdir(), 'scratch-heartbeat-'));
    vi.stubEnv('TMPDIR', dir);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const own = scratchFolder();
      age(own.path, 2 * ORPHAN_MIN_AGE_MS);
      vi.advanceTimersByTime(ORPHAN_MIN_AGE_MS / 2);
      expect(statSync(own.path).mtimeMs).toBeGreaterThan(Date.now() - ORPHAN_MIN_AGE_MS / 2);
      own.remove();
      expect(readdirSync(dir)).toEqual([]);
      expect(vi.getTimerCount()).toBe(0); // the heartbeat stops with the folder
    } finally {
      vi.useRealTimers();
      vi.unstubAllEnvs();
    }
  });

  it('is gone once closed', () => {
    dir = mkdtempSync(join(tmpdir(), 'scratch-close-'));
    const db = openScratchDb();
    const path = db.name;
    expect(existsSync(path)).toBe(true);
    db.close();
    expect(existsSync(path)).toBe(false);
  });
});
