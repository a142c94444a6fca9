import { describe, expect, it } from 'vitest';
import { detect as libraryDetect, loadWorkspace } from '../../src/index.js';
import { detectOnTwoThreads } from '../../src/detect/parallel.js';
import { detectDerived, detectIntoTable } from '../../src/detect/run.js';
import { derive, detect, sessionTimelineOf } from '../../src/pipeline/derived.js';
import { fileSource } from '../../src/read/sources.js';
import { sessionTimelineStream } from '../../src/store/session-timeline.js';
import { workspaceOf } from '../helpers/logs.js';

// pipeline/ is the one place the timeline is derived: detect and the store's read models take a
// derived database, and one with sessions left to derive is a programming error, not a stale answer.

const SAMPLE = 'samples/replay-integrity.ndjson';
const lines = async () => (await import('node:fs')).readFileSync(SAMPLE, 'utf8').split('\n').filter((l) => l.trim() !== '');

describe('a stage after derive, given a database not yet derived', () => {
  it('throws, naming the undone derive, rather than judge or show a stale timeline', async () => {
    const ws = await workspaceOf(await lines());
    try {
      const notDerived = /given a database with \d+ session\(s\) not yet derived/;
      expect(() => detectDerived(ws.db)).toThrow(notDerived);
      expect(() => detectIntoTable(ws.db)).toThrow(notDerived);
      await expect(detectOnTwoThreads(ws.db, {}, { threads: 'inline' })).rejects.toThrow(notDerived);
      expect(() => sessionTimelineStream(ws.db, '7f3a91')).toThrow(notDerived);
      // Nothing was derived on the way: the stages only read.
      expect(ws.db.prepare('SELECT count(*) FROM streams').pluck().get()).toBe(0);
    } finally {
      ws.db.close();
    }
  });

  it('judges and shows it once pipeline/ has derived it, as the pipeline functions do on a fresh one', async () => {
    const fresh = await workspaceOf(await lines());
    const derived = await workspaceOf(await lines());
    try {
      expect(derive(derived.db)).toBeGreaterThan(0);
      const judged = detectDerived(derived.db);
      expect(judged.findings.length).toBeGreaterThan(0);
      expect(JSON.stringify(detect(fresh.db))).toBe(JSON.stringify(judged));
      expect(sessionTimelineStream(derived.db, '7f3a91')?.lanes.length).toBeGreaterThan(0);
      expect(sessionTimelineOf(fresh.db, '7f3a91')?.lanes).toEqual(sessionTimelineStream(derived.db, '7f3a91')?.lanes);
    } finally {
      fresh.db.close();
      derived.db.close();
    }
  });

  it("keeps the library's detect working on a freshly loaded workspace (README, library)", async () => {
    const ws = await loadWorkspace([fileSource(SAMPLE)]);
    try {
      expect(libraryDetect(ws.db).summary.by_rule).toEqual(detect(ws.db).summary.by_rule);
      expect(libraryDetect(ws.db).findings.length).toBeGreaterThan(0);
    } finally {
      ws.db.close();
    }
  });
});
