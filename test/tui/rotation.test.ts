// A followed file that rotates: follow() ends its source with why 'rotated', runLive
// passes it on, and the dashboard model carries a notice the header shows.
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FindingBook } from '../../src/live/finding-book.js';
import { runLive } from '../../src/live/runner.js';
import { LiveSession } from '../../src/live/session.js';
import { follow } from '../../src/read/follow.js';
import { openDb } from '../../src/store/db.js';
import { DashboardModelSource } from '../../src/tui/wire/store-model.js';

const dir = mkdtempSync(join(tmpdir(), 'rs-rotate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (ms: number, kind: string) => `${JSON.stringify({ ts: new Date(Date.UTC(2026, 10, 9, 10, 0, 0, ms)).toISOString(), kind, session: 'S1', incarnation: 'i-1' })}\n`;

describe('rotation notice', () => {
  it('a noted event is in the next model, newest last, and makes a new snapshot', () => {
    const db = openDb(':memory:');
    const source = new DashboardModelSource(db, new FindingBook(), { sources: ['a.log'], mode: 'live', now: () => Date.UTC(2026, 10, 9, 10) });
    const before = source.model();
    source.noteSourceEvent('a.log', 'rotated, new file followed');
    const after = source.model();
    expect(after).not.toBe(before);
    expect(after.sourceEvents).toEqual([{ at: '2026-11-09T10:00:00.000Z', source: 'a.log', text: 'rotated, new file followed' }]);
    db.close();
  });

  it('follow → runLive reports the rotation of a followed file (what watch turns into the notice)', async () => {
    const path = join(dir, 'app.log');
    writeFileSync(path, line(0, 'session.created'));
    const db = openDb(':memory:');
    const live = new LiveSession(db, {});
    const controller = new AbortController();
    const ends: string[] = [];
    const timeout = setTimeout(() => controller.abort(), 5000);
    const run = runLive(live, follow([path], { signal: controller.signal, pollMs: 20, rotationGraceMs: 100 }), {
      signal: controller.signal,
      onEnd: (source, why) => {
        ends.push(`${source} ${why}`);
        controller.abort();
      },
    });
    await new Promise((r) => setTimeout(r, 200));
    renameSync(path, `${path}.1`);
    writeFileSync(path, line(10, 'session.created'));
    appendFileSync(path, line(20, 'session.terminated'));
    await run;
    clearTimeout(timeout);
    // The renamed file ends once its writer has left it for the grace period; the run's stop then ends the new one.
    expect(ends).toEqual([`${path} rotated`, `${path} (rotated 1) stopped`]);
    db.close();
  });
});
