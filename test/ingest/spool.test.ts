import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import type { ProgressEvent } from '../../src/model/progress.js';
import { WORKER_MIN_BYTES } from '../../src/pipeline/ingest.js';
import { EMBEDDED_DB, StoreError } from '../../src/store/db.js';
import { T0_MS } from './support.js';

// stdin is copied to a spool before it is read (pipeline/ingest.ts loadInputs): its size, known
// then, must pick the database a file of that size gets, and its progress must count each line once.

function stdinOf(lines: number): { name: string; path: null; open: () => Readable } {
  const text = Array.from({ length: lines }, (_, i) =>
    JSON.stringify({ ts: new Date(T0_MS + i).toISOString(), kind: 'event.sent', session: `S${i % 50}`, stream: 'g1', event_id: String(i), pad: 'x'.repeat(160) }),
  ).join('\n');
  // In chunks of 64 KB, as a pipe delivers them.
  const bytes = Buffer.from(text + '\n');
  const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
  return { name: '<stdin>', path: null, open: () => Readable.from(chunks) };
}

describe('stdin spooled', () => {
  it('a large stdin gets the named scratch database a large file gets, in the folder of its spool', async () => {
    const lines = Math.ceil(WORKER_MIN_BYTES / 200) + 1000;
    const ws = await loadWorkspace([stdinOf(lines)]);
    const spoolPath = (ws.db.prepare('SELECT path FROM sources').get() as { path: string }).path;
    expect(ws.db.name).not.toBe(EMBEDDED_DB);
    expect(dirname(ws.db.name)).toBe(dirname(spoolPath));
    expect(ws.sources[0]).toMatchObject({ name: '<stdin>', lines, recordLines: lines });
    ws.db.close();
    expect(existsSync(dirname(spoolPath))).toBe(false);
  });

  it('a small stdin stays in the anonymous database, its spool removed when it closes', async () => {
    const ws = await loadWorkspace([stdinOf(10)]);
    const spoolPath = (ws.db.prepare('SELECT path FROM sources').get() as { path: string }).path;
    expect(ws.db.name).toBe(EMBEDDED_DB);
    expect(existsSync(spoolPath)).toBe(true);
    ws.db.close();
    expect(existsSync(dirname(spoolPath))).toBe(false);
  });

  it('tells its lines as they are copied, rising to the count, never again from zero', async () => {
    const events: ProgressEvent[] = [];
    const ws = await loadWorkspace([stdinOf(3000)], { onProgress: (e) => events.push(e) });
    ws.db.close();
    const told = events.flatMap((e) => (e.type === 'lines' ? [e.lines] : []));
    expect(told.length).toBeGreaterThan(1);
    expect(told.every((n, i) => i === 0 || n >= told[i - 1]!)).toBe(true);
    expect(told.at(-1)).toBe(3000);
    expect(events[0]).toEqual({ type: 'stage', stage: 'read' });
  });

  it('copies the lines as before when the temporary folder cannot take a spool', async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent-resumescope-tmp';
    try {
      const ws = await loadWorkspace([stdinOf(10)]);
      const copied = ws.db.prepare('SELECT count(*) FROM records WHERE raw IS NOT NULL').pluck().get();
      expect(ws.sources[0]).toMatchObject({ name: '<stdin>', recordLines: 10 });
      expect(copied).toBe(10);
      ws.db.close();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('a spool removed under the run (a TMPDIR cleaner) stops the run, and is not said of the input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-lost-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    const { open } = stdinOf(10);
    // The writer ends after the spool's folder was emptied: the copy the run goes on to read is gone.
    async function* removedAtEnd(): AsyncGenerator<Buffer> {
      yield* open() as AsyncIterable<Buffer>;
      for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
    }
    try {
      const run = loadWorkspace([{ name: '<stdin>', path: null, open: () => Readable.from(removedAtEnd()) }]);
      await expect(run).rejects.toThrow(StoreError);
      await expect(run).rejects.toThrow(/^<stdin>: its copy in this run's scratch folder \(.*spool-0\.log\) was removed while the run read it/);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
