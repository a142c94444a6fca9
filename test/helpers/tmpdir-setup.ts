import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the whole test run one TMPDIR of its own, removed at the end: the forks that run the test files
 * inherit it, and so do the command lines they spawn. A test process ended by the runner (or a child a
 * test kills on purpose, as a crash would) runs no exit handler, and its scratch folders would otherwise
 * stay in the machine's /tmp for the next real run to reclaim an hour later.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'resumescope-tests-'));
  // As /tmp is: the tests that run a command as another user (a database no one may write to) reach into it.
  chmodSync(dir, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
