import { appendFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { runLive } from '../../src/live/runner.js';
import { LiveSession } from '../../src/live/session.js';
import { markFollowedUnfinished, noteFollowedAtEnd, type CutShort } from '../../src/live/unfinished-inputs.js';
import { loadInputs } from '../../src/pipeline/ingest.js';
import { follow } from '../../src/read/follow.js';
import { fileSource } from '../../src/read/sources.js';
import { openDb } from '../../src/store/db.js';
import { healthyLines, tempDir, waitFor } from './support.js';

// `watch --db` keeps each batch as it comes: a run stopped before a file's end leaves the file's first lines in
// the database. Driven in-process here, stopped right after a known batch (no signal to time): the database
// must say so to later commands, and an ingest of the file must not store those lines a second time.

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

/** A log of `sessions` healthy sessions: 3 lines each. */
function logOf(sessions: number): string {
  let text = '';
  for (let i = 0; i < sessions; i++) text += healthyLines(`S${i}`, i * 10);
  return text;
}

/**
 * Follows `file` into the database at `dbPath` as `watch --db` does (marks, batches, the marks at the end),
 * stopping once `stopAfterLines` lines were handed over. Small batches: the stop comes mid-file.
 */
async function watchInto(dbPath: string, file: string, stopAfterLines: number): Promise<{ stored: number; cut: CutShort[] }> {
  const db = openDb(dbPath);
  try {
    markFollowedUnfinished(db, [file]);
    const live = new LiveSession(db);
    const controller = new AbortController();
    let handed = 0;
    await runLive(live, follow([file], { signal: controller.signal, maxBatchBytes: 2048 }), {
      signal: controller.signal,
      onLines: (_source, n) => {
        handed += n;
        if (handed >= stopAfterLines) controller.abort();
      },
    });
    return { stored: live.statsOf(file)?.lines ?? 0, cut: noteFollowedAtEnd(db, [file], live.notEnded()) };
  } finally {
    db.close();
  }
}

/** The unusable inputs a later command on the database names (`analyze --db` says them and exits 2). */
async function markedInputs(dbPath: string): Promise<{ name: string; reason: string }[]> {
  const { db, unusableEarlier } = await loadInputs([], { db: dbPath });
  db.close();
  return unusableEarlier.map(({ name, reason }) => ({ name, reason }));
}

function recordsIn(dbPath: string): number {
  const db = openDb(dbPath);
  try {
    return db.prepare('SELECT count(*) FROM records').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('watch --db stopped before a file was read to its end', () => {
  it('leaves the file marked with how far it went, and an ingest of the unchanged file is refused rather than storing its first lines twice', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('app.ndjson');
    const dbPath = d.file('live.db');
    writeFileSync(file, logOf(400));

    const { stored, cut } = await watchInto(dbPath, file, 1);
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(1200);
    const reason = `the watch following it stopped before reading it to its end: its first ${stored} lines are in the database`;
    expect(cut).toEqual([{ name: file, reason }]);
    expect(await markedInputs(dbPath)).toEqual([{ name: file, reason }]);

    const before = recordsIn(dbPath);
    await expect(loadInputs([fileSource(file)], { db: dbPath })).rejects.toThrow(
      `${file}: ${dbPath} already holds its first ${stored} lines, which \`watch --db\` followed as ${file} before the file was read to its end or grew; ingesting it would store them twice.`,
    );
    expect(recordsIn(dbPath)).toBe(before);
    // The refusal changed nothing: the database still says what it lacks.
    expect(await markedInputs(dbPath)).toEqual([{ name: file, reason }]);
    // A gate on the database fails, with advice that does not send the user to the refused ingest.
    const gate = await cli('analyze', '--db', dbPath);
    expect(gate.code).toBe(2);
    expect(gate.err).toContain(`${file}: unusable: ${reason} (in ${dbPath}; analyze the file itself, or ingest it into a new --db file)`);
  });

  it('near miss: read to its end before the stop, the file is not marked, the unchanged file adds nothing, and the file grown since is refused', async () => {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('app.ndjson');
    const dbPath = d.file('live.db');
    writeFileSync(file, logOf(400));

    const { stored, cut } = await watchInto(dbPath, file, 1200);
    expect(stored).toBe(1200);
    expect(cut).toEqual([]);
    expect(await markedInputs(dbPath)).toEqual([]);

    const again = await loadInputs([fileSource(file)], { db: dbPath });
    again.db.close();
    expect(again.stats[0]).toMatchObject({ duplicateOf: file, duplicateHasRecords: true });
    expect(recordsIn(dbPath)).toBe(1200);

    appendFileSync(file, healthyLines('later', 10_000));
    await expect(loadInputs([fileSource(file)], { db: dbPath })).rejects.toThrow(`already holds its first 1200 lines`);
    expect(recordsIn(dbPath)).toBe(1200);

    // Another file that begins otherwise is other content: it is ingested.
    const other = d.file('other.ndjson');
    writeFileSync(other, healthyLines('O1') + logOf(400));
    const ingested = await loadInputs([fileSource(other)], { db: dbPath });
    ingested.db.close();
    expect(ingested.stats[0]!.records).toBe(1203);
  });
});

describe('watch --db following a file rotated by copytruncate', () => {
  /**
   * Follows app.ndjson into a database as `watch --db` does; once its 1200 lines are read, copies it to
   * app.ndjson.1 with `unread` after them (lines written after the follower's last read), truncates it and
   * writes one session, then stops once those 3 lines are read.
   */
  async function copytruncated(unread: string): Promise<{ copy: string; file: string; dbPath: string }> {
    const d = tempDir();
    dirs.push(d);
    const file = d.file('app.ndjson');
    const copy = d.file('app.ndjson.1');
    const dbPath = d.file('live.db');
    writeFileSync(file, logOf(400));
    const db = openDb(dbPath);
    try {
      markFollowedUnfinished(db, [file]);
      const live = new LiveSession(db);
      const controller = new AbortController();
      let handed = 0;
      const run = runLive(live, follow([file], { signal: controller.signal, pollMs: 20 }), {
        signal: controller.signal,
        onLines: (_source, n) => (handed += n),
      });
      await waitFor('the file read to its end', () => handed >= 1200);
      writeFileSync(copy, readFileSync(file, 'utf8') + unread);
      truncateSync(file, 0);
      appendFileSync(file, healthyLines('after', 20_000));
      await waitFor('the lines written after the truncation', () => handed >= 1203);
      controller.abort();
      await run;
      expect(noteFollowedAtEnd(db, [file], live.notEnded())).toEqual([]);
    } finally {
      db.close();
    }
    return { copy, file, dbPath };
  }

  it('recognises the copy of what was read to its end before the truncation: an ingest of it adds nothing', async () => {
    const { copy, file, dbPath } = await copytruncated('');
    const again = await loadInputs([fileSource(copy)], { db: dbPath });
    again.db.close();
    expect(again.stats[0]).toMatchObject({ duplicateOf: file, duplicateHasRecords: true });
    expect(recordsIn(dbPath)).toBe(1203);
  });

  it('near miss: refuses a copy that holds a line written after the last read, rather than storing the first lines twice', async () => {
    const { copy, dbPath } = await copytruncated(healthyLines('unread', 9_000));
    await expect(loadInputs([fileSource(copy)], { db: dbPath })).rejects.toThrow('already holds its first 1200 lines');
    expect(recordsIn(dbPath)).toBe(1203);
  });
});
