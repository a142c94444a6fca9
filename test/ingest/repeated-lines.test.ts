import { describe, expect, it } from 'vitest';
import { lineKey } from '../../src/normalize/repeated-lines.js';
import { RecentLines } from '../../src/store/recent-lines.js';
import { renderText } from '../../src/render/text.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderHtml } from '../../src/render/html/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadWorkspace } from '../../src/api.js';
import { unusableReason } from '../../src/pipeline/ingest.js';
import type { Source } from '../../src/read/sources.js';
import type { Db } from '../../src/store/db.js';
import { analyzeLines, at, findingsOf, logSource, workspaceOf } from '../helpers/logs.js';

// A shipper that delivers at least once writes some lines twice, byte for byte: read once, with the
// repeat counted among the ignored lines and listed (repeated_lines), so that a line delivered twice
// is not an event id emitted twice, a second resumption, or a tools/call executed twice. Times here
// have milliseconds (at(2013)): a line whose time is written to the second may be two records.

const created = { ts: at(0), kind: 'session.created', session: 'S1' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const closed = { ts: at(4000), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'client' };
const resumed = { ts: at(5000), kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: 'g2', last_event_id: 1, decision: 'resume', status: 200, replayed: 2, first_replayed: 2 };

describe('a line delivered twice', () => {
  it('is read once: no event id emitted twice, no replay short of the events sent', async () => {
    const twice = JSON.stringify(sent(2013, 2));
    const report = await analyzeLines([created, opened, sent(1000, 1), twice, twice, sent(3000, 3), closed, resumed]);
    expect(findingsOf(report, 'event-id-regression')).toEqual([]);
    expect(findingsOf(report, 'silent-truncation')).toEqual([]);
    expect(report.summary).toMatchObject({ records: 7, ignored_lines: 1, repeated_lines: 1 });
    expect(renderText(report)).toContain('0 rejected lines, 1 ignored line (1 repeating an earlier line, read once)');
    expect(renderMarkdown(report)).toContain('1 line repeated an earlier line byte for byte and was read once: `resumescope query repeated` lists it.');
    expect(renderHtml(report)).toContain('<span class="n">1</span> <span class="l">of them repeated lines</span>');
  });

  it('is listed with the line it repeats', async () => {
    const twice = JSON.stringify(sent(2013, 2));
    const ws = await workspaceOf([created, opened, twice, sent(3000, 3), twice]);
    try {
      expect(ws.db.prepare('SELECT line, of_file, of_line FROM repeated_lines').all()).toEqual([{ line: 5, of_file: 'server.ndjson', of_line: 3 }]);
      expect(ws.db.prepare('SELECT lines, record_lines, ignored, repeated FROM sources').get()).toEqual({ lines: 5, record_lines: 4, ignored: 1, repeated: 1 });
    } finally {
      ws.db.close();
    }
  });

  // An export in two pages whose bounds overlap by two lines: page 2 begins with page 1's last two.
  const pageLines = () => [created, opened, sent(1000, 1), sent(2013, 2), sent(3017, 3), closed, resumed].map((l) => JSON.stringify(l));
  const page1 = () => logSource(pageLines().slice(0, 5), 'page-1.ndjson');
  const page2 = () => logSource(pageLines().slice(3), 'page-2.ndjson');
  function expectOverlapReadOnce(db: Db): void {
    expect(db.prepare('SELECT * FROM repeated_lines').all()).toEqual([
      { file: 'page-2.ndjson', line: 1, of_file: 'page-1.ndjson', of_line: 4 },
      { file: 'page-2.ndjson', line: 2, of_file: 'page-1.ndjson', of_line: 5 },
    ]);
    expect(db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(7);
  }

  it('is read once where an export\'s next page repeats the last lines of the page before', async () => {
    const ws = await loadWorkspace([page1(), page2()]);
    try {
      expectOverlapReadOnce(ws.db);
    } finally {
      ws.db.close();
    }
  });

  // A page wholly inside the export read before it: every line a record, read once as a repeat. Not "no
  // record lines", and not unusable in one order of the arguments only.
  it('leaves a page all of whose lines repeat an earlier file usable, in either order', async () => {
    const whole = () => logSource(pageLines(), 'whole.ndjson');
    for (const order of [[whole(), page1()], [page1(), whole()]]) {
      const ws = await loadWorkspace(order);
      try {
        expect(ws.sources.map(unusableReason)).toEqual([undefined, undefined]);
        expect(ws.db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(7);
      } finally {
        ws.db.close();
      }
    }
  });

  it('still finds unusable a file whose only lines are a bad one and a repeat of a bad one', async () => {
    const ws = await loadWorkspace([logSource(['{not json'], 'a.ndjson'), logSource(['{not json', '{not json'], 'b.ndjson')]);
    try {
      expect(ws.sources.map(unusableReason)).toEqual([expect.stringContaining('line 1: invalid JSON'), expect.stringContaining('line 1: invalid JSON')]);
    } finally {
      ws.db.close();
    }
  });

  // The app's own file beside the pod's CRI log of the same lines (or a Loki export of them): one record
  // through two channels. Known by the record's text inside the envelope, not the envelope's bytes.
  it('is read once where another file carries the same record inside an envelope (a CRI log of the app\'s lines)', async () => {
    const lines = pageLines();
    const cri = lines.map((l, i) => `2026-11-09T10:00:0${i}.123456789Z stdout F ${l}`);
    const ws = await loadWorkspace([logSource(lines, 'app.ndjson'), logSource(cri, '0.log')]);
    try {
      expect(ws.db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(7);
      expect(ws.db.prepare('SELECT count(*) FROM repeated_lines WHERE file = ? AND of_file = ?').pluck().get('0.log', 'app.ndjson')).toBe(7);
    } finally {
      ws.db.close();
    }
  });

  it('is not one where the envelope carries another record: a byte of the record differs, or its time to the second', async () => {
    const lines = pageLines();
    const other = lines.map((l) => l.replace('"S1"', '"S2"'));
    const toSecond = [JSON.stringify({ ...sent(0, 2), ts: '2026-11-09T10:00:02Z' })];
    const cri = [...other, ...toSecond].map((l) => `2026-11-09T10:00:00.123456789Z stdout F ${l}`);
    const ws = await loadWorkspace([logSource([...lines, ...toSecond], 'app.ndjson'), logSource(cri, '0.log')]);
    try {
      expect(ws.db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(16);
      expect(ws.db.prepare('SELECT count(*) FROM repeated_lines').pluck().get()).toBe(0);
    } finally {
      ws.db.close();
    }
  });

  it('is read once where the next page is ingested by a later run into the same database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resumescope-pages-'));
    const path = join(dir, 'timeline.db');
    try {
      await loadWorkspace([page1()], { db: path }).then((ws) => ws.db.close());
      const ws = await loadWorkspace([page2()], { db: path });
      try {
        expectOverlapReadOnce(ws.db);
      } finally {
        ws.db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is read again where the file that held it first was not stored (it could not be read to its end)', async () => {
    const lines = [created, opened, sent(1000, 1), sent(2013, 2)].map((l) => JSON.stringify(l));
    const broken: Source = {
      name: 'broken.ndjson',
      path: null,
      open: () =>
        Readable.from(
          (async function* () {
            yield Buffer.from(lines.join('\n') + '\n');
            throw new Error('connection reset');
          })(),
        ),
    };
    const ws = await loadWorkspace([broken, logSource(lines, 'whole.ndjson')]);
    try {
      expect(ws.db.prepare('SELECT * FROM repeated_lines').all()).toEqual([]);
      expect(ws.db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(4);
    } finally {
      ws.db.close();
    }
  });

  it('is not one whose time is written to the second: two records may share it', async () => {
    const twice = JSON.stringify({ ...sent(0, 2), ts: '2026-11-09T10:00:02Z' });
    const report = await analyzeLines([created, opened, twice, twice]);
    expect(findingsOf(report, 'event-id-regression')).toHaveLength(1);
    expect(report.summary).toMatchObject({ records: 4, ignored_lines: 0 });
  });

  it('is one whose time falls on a whole second but is written to the millisecond', async () => {
    const twice = JSON.stringify({ ...sent(0, 2), ts: '2026-11-09T10:00:02.000Z' });
    const report = await analyzeLines([created, opened, twice, twice]);
    expect(findingsOf(report, 'event-id-regression')).toEqual([]);
    expect(report.summary).toMatchObject({ records: 3, ignored_lines: 1, repeated_lines: 1 });
  });

  it('is not one where only the time differs: an id sent again is still an id emitted twice', async () => {
    const report = await analyzeLines([created, opened, sent(1000, 1), sent(2000, 2), sent(2001, 2)]);
    expect(findingsOf(report, 'event-id-regression')).toHaveLength(1);
    expect(report.summary).toMatchObject({ ignored_lines: 0 });
    expect(report.summary.repeated_lines).toBeUndefined();
    expect(renderText(report)).not.toContain('repeating an earlier line');
    expect(renderMarkdown(report)).not.toContain('repeated an earlier line');
    expect(renderHtml(report)).not.toContain('repeated lines');
  });

  it('is rejected again where it is not a record, and counted each time', async () => {
    const report = await analyzeLines([created, '{not json', '{not json']);
    expect(report.summary).toMatchObject({ records: 1, rejected_lines: 2, ignored_lines: 0 });
  });
});

describe('RecentLines', () => {
  const tsMs = Date.parse('2026-11-09T10:00:00.013Z');
  const at = (line: number) => ({ source: 1, line, tsMs });

  it('remembers the lines of the window and forgets the oldest beyond it', () => {
    const recent = new RecentLines(2);
    recent.note(lineKey('a'), at(1));
    recent.note(lineKey('b'), at(2));
    expect(recent.earlier(lineKey('a'), tsMs)?.line).toBe(1);
    recent.note(lineKey('c'), at(3));
    expect(recent.earlier(lineKey('a'), tsMs)).toBeUndefined();
    expect([lineKey('b'), lineKey('c'), lineKey('d')].map((k) => recent.earlier(k, tsMs)?.line)).toEqual([2, 3, undefined]);
  });

  it('gives back what it remembers oldest first, each line once, without the lines of a source forgotten', () => {
    const recent = new RecentLines(3);
    recent.note(lineKey('a'), at(1));
    recent.note(lineKey('b'), { source: 2, line: 1, tsMs });
    recent.note(lineKey('c'), at(3));
    recent.forget(2);
    recent.note(lineKey('d'), at(4));
    expect(recent.remembered().map(([, r]) => r.line)).toEqual([3, 4]);
    const again = new RecentLines(3);
    for (const [key, r] of recent.remembered()) again.note(key, r);
    expect(again.earlier(lineKey('c'), tsMs)?.line).toBe(3);
  });

  it('keeps a line noted again until its own note leaves the window, not its earlier one', () => {
    const recent = new RecentLines(3);
    recent.note(lineKey('a'), { source: 2, line: 1, tsMs });
    recent.forget(2);
    recent.note(lineKey('b'), at(2));
    recent.note(lineKey('a'), at(3));
    recent.note(lineKey('c'), at(4)); // the ring's slot of a's first note is the one to go
    expect(recent.earlier(lineKey('a'), tsMs)?.line).toBe(3);
    expect(recent.remembered().map(([, r]) => r.line)).toEqual([2, 3, 4]);
    recent.note(lineKey('d'), at(5));
    recent.note(lineKey('e'), at(6));
    expect(recent.earlier(lineKey('a'), tsMs)).toBeUndefined();
  });

  it('does not take a line of another time for the one remembered under its key', () => {
    const recent = new RecentLines();
    recent.note(lineKey('a'), at(1));
    expect(recent.earlier(lineKey('a'), tsMs + 1)).toBeUndefined();
  });
});

describe('lineKey', () => {
  it('tells apart lines that differ in one character, anywhere, or in their length', () => {
    const line = JSON.stringify({ ts: '2026-11-09T10:00:02.013Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1007 });
    const keys = new Set([line, line.replace('1007', '1008'), line.replace('S1', 'S2'), `${line} `, line.slice(1), 'x' + line.slice(1)].map(lineKey));
    expect(keys.size).toBe(6);
    expect(lineKey(line)).toBe(lineKey(String(line)));
    expect(Number.isSafeInteger(lineKey(line))).toBe(true);
  });
});
