import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { WORKER_MIN_BYTES } from '../../src/pipeline/ingest.js';
import { fileSource } from '../../src/read/sources.js';
import { EMBEDDED_DB } from '../../src/store/db.js';
import { cli } from '../cli/run-cli.js';
import { T0_MS } from './support.js';

// A container image with a missing or read-only TMPDIR must not pass a smoke test on a small log and
// fail on the first production export: a large one-off input then does without the named scratch
// database (one thread, SQLite's own temporary file), and `query`, which cannot do without it, is
// refused whatever the input's size, with a message naming TMPDIR and the fix.

const MISSING = '/nonexistent-resumescope-tmp/tmp';
let dir: string | undefined;
let saved: string | undefined;

afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A log file of `bytes` or a little more, of lines 200 bytes long. */
function logOf(bytes: number): string {
  dir = mkdtempSync(join(tmpdir(), 'tmpdir-unusable-'));
  const lines = Math.ceil(bytes / 200);
  const text = Array.from({ length: lines }, (_, i) =>
    JSON.stringify({ ts: new Date(T0_MS + i).toISOString(), kind: 'event.sent', session: `S${i % 50}`, stream: 'g1', event_id: String(i), pad: 'x'.repeat(100) }),
  );
  const path = join(dir, 'big.ndjson');
  writeFileSync(path, text.join('\n') + '\n');
  return path;
}

function withTmpdir(path: string): void {
  saved = process.env.TMPDIR;
  process.env.TMPDIR = path;
}

describe('a TMPDIR that takes no folder', () => {
  it('a large input is still read, into the anonymous database, as a small one is', async () => {
    const log = logOf(WORKER_MIN_BYTES + 1024);
    withTmpdir(MISSING);
    const ws = await loadWorkspace([fileSource(log)]);
    try {
      expect(ws.db.name).toBe(EMBEDDED_DB);
      expect(ws.sources[0]).toMatchObject({ recordLines: Math.ceil((WORKER_MIN_BYTES + 1024) / 200) });
      expect(ws.sources[0]!.readError).toBeUndefined();
    } finally {
      ws.db.close();
    }
  });

  it('query is refused on a small log too, naming TMPDIR and the fix, exit 2', async () => {
    const log = logOf(2000);
    withTmpdir(MISSING);
    const r = await cli('query', 'select count(*) n from records', log);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(
      /^resumescope: cannot make the scratch database's folder in TMPDIR \(\/nonexistent-resumescope-tmp\/tmp\): ENOENT[^\n]*; set TMPDIR to a folder this user can write to \(or ingest the logs into --db FILE and query that\)\n$/,
    );
  });
});
