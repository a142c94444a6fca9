import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openScratchDb, removeOrphans } from '../../src/store/scratch-db.js';

// A large one-off run keeps its timeline in a named scratch file (a GB at 3M lines). A run killed
// by a signal runs no exit handler: the next scratch database must reclaim what it left, and
// nothing else.

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid no process has any more: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function folder(name: string, files: string[]): string {
  const path = join(dir, name);
  mkdirSync(path);
  for (const f of files) writeFileSync(join(path, f), 'x');
  return path;
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

  it('is gone once closed', () => {
    dir = mkdtempSync(join(tmpdir(), 'scratch-close-'));
    const db = openScratchDb();
    const path = db.name;
    expect(existsSync(path)).toBe(true);
    db.close();
    expect(existsSync(path)).toBe(false);
  });
});
