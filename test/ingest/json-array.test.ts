import { describe, expect, it } from 'vitest';
import { JSON_ARRAY_NOT_READ } from '../../src/read/entries.js';
import { jsonExportStart } from '../../src/read/json-array.js';
import { load } from '../formats/rows.js';
import { gzippedRecords, linesOf } from './export-files.js';

// An export written as one JSON array (gcloud logging read --format=json, az monitor
// log-analytics query, a console's "export as JSON"): pretty-printed, no line of it is JSON
// on its own. Each entry is read as a line, numbered by the line it starts on.

const created = { ts: '2026-11-09T10:00:00.100Z', kind: 'session.created', session: 'S1', node: 'mcp-a' };
const opened = { ts: '2026-11-09T10:00:00.200Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'mcp-a' };
const closed = { ts: '2026-11-09T10:00:00.300Z', kind: 'stream.closed', session: 'S1', stream: 'g1', node: 'mcp-a', note: 'a "}], [{" in a string' };
/** As Google Cloud Logging exports an entry: the structured line under jsonPayload. */
const entry = (rec: { ts: string }, n: number) => ({
  insertId: `id${n}`,
  jsonPayload: rec,
  resource: { type: 'k8s_container', labels: { pod_name: 'mcp-0', namespace_name: 'billing' } },
  timestamp: rec.ts,
  severity: 'INFO',
  logName: 'projects/p/logs/stdout',
});
const pretty = (entries: unknown[]) => `${JSON.stringify(entries, null, 2)}\n`;

const lines = (text: string | Buffer, chunkBytes?: number) => linesOf(text, A, chunkBytes);

/** Entries asked for (`--json-array`). */
const A = { jsonArray: true };

const rowsOf = (got: Awaited<ReturnType<typeof load>>) => got.rows.map(({ line: _l, ...r }) => r);

describe('a log export written as one JSON array, without --json-array', () => {
  it('is unusable, as log-format.md reads a line per record, and its first line says how to read it', async () => {
    const got = await load([pretty([created, opened]).trimEnd()]);
    expect(got.stats).toMatchObject({ records: 0, firstProblem: { line: 1, reason: JSON_ARRAY_NOT_READ } });
    expect(got.rejected[0]).toEqual({ line: 1, reason: JSON_ARRAY_NOT_READ });
  });

  it('near miss: a compact one-line array is the JSON line it is (ignored), with no advice', async () => {
    const got = await load([JSON.stringify([created, opened]), JSON.stringify(created)]);
    expect(got.stats).toMatchObject({ lines: 2, records: 1, ignored: 1, rejected: 0 });
  });
});

describe('a log export written as one JSON array, with --json-array', () => {
  it('reads each entry of a pretty-printed export as the record it holds, on the line the entry starts', async () => {
    const plain = await load([created, opened, closed]);
    const text = pretty([created, opened, closed].map(entry));
    const got = await load([text.trimEnd()], A);
    expect(rowsOf(got)).toEqual(rowsOf(plain));
    // Each entry starts where its `{` is: the file's line 2, then every 20 lines.
    const starts = text.split('\n').flatMap((l, i) => (l === '  {' ? [i + 1] : []));
    expect(got.rows.map((r) => r.line)).toEqual(starts);
    expect(got.stats).toMatchObject({ lines: 3, records: 3, rejected: 0, ignored: 0 });
  });

  it('cuts the same entries whatever the chunks the bytes come in, a byte at a time included', async () => {
    const text = pretty([created, opened, closed].map(entry));
    const whole = await lines(text);
    expect(whole).toHaveLength(3);
    expect(JSON.parse((whole[2] as { text: string }).text).jsonPayload.note).toBe(closed.note);
    for (const size of [1, 7, 64]) expect(await lines(text, size)).toEqual(whole);
  });

  it('reads a compact one-line array, an array of records, and a gzipped export', async () => {
    const plain = rowsOf(await load([created, opened]));
    expect(rowsOf(await load([JSON.stringify([created, opened])], A))).toEqual(plain);
    expect(await gzippedRecords('export.json.gz', pretty([created, opened]), A)).toEqual([[2, 'session.created'], [8, 'stream.opened']]);
  });

  it('keeps the entries of an export cut short, and rejects the one it cut', async () => {
    const text = pretty([created, opened, closed].map(entry));
    const got = await load([text.slice(0, text.lastIndexOf('"severity"'))], A);
    expect(got.rows.map((r) => r.kind)).toEqual(['session.created', 'stream.opened']);
    const third = text.split('\n').flatMap((l, i) => (l === '  {' ? [i + 1] : []))[2];
    expect(got.rejected).toEqual([{ line: third, reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it('reads text after the array as lines, numbered as they are in the file', async () => {
    const text = `${pretty([created])}${JSON.stringify(opened)}\nnot json\n`;
    const got = await load([text.trimEnd()], A);
    // `[`, the entry on lines 2-7, `]`, then the lines
    expect(got.rows.map((r) => [r.line, r.kind])).toEqual([[2, 'session.created'], [9, 'stream.opened']]);
    expect(got.rejected).toEqual([{ line: 10, reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it("reads the AWS CLI's answer (aws logs filter-log-events): each event's message, its time and log stream; the paging tokens are no lines", async () => {
    const { ts: _ts, node: _n, ...untimed } = opened;
    const event = (rec: object, ms: number, stream?: string) => ({
      ...(stream !== undefined && { logStreamName: stream }),
      timestamp: Date.parse('2026-11-09T10:00:00Z') + ms,
      message: `${JSON.stringify(rec)}\n`,
      ingestionTime: Date.parse('2026-11-09T10:00:01Z') + ms,
      eventId: `3790${ms}`,
    });
    // As the AWS CLI prints it: four spaces, the events first, then what the API answered besides.
    const answer = JSON.stringify(
      { events: [event(created, 100, 'ecs/mcp/0a1b2c3d'), event(untimed, 250, 'ecs/mcp/9f8e7d6c'), event(untimed, 300)], searchedLogStreams: [{ logStreamName: 'ecs/mcp/0a1b2c3d', searchedCompletely: true }], nextToken: 'Bxkq6kVGFtq2y_MoigeqscPOdhXVbhiVtLoAmXb5jCrI' },
      null,
      4,
    );
    const got = await load([answer], A);
    expect(got.rows.map((r) => [r.kind, new Date(r.ts_ms).toISOString(), r.node])).toEqual([
      ['session.created', '2026-11-09T10:00:00.100Z', 'mcp-a'],
      ['stream.opened', '2026-11-09T10:00:00.250Z', 'ecs/mcp/9f8e7d6c'],
      ['stream.opened', '2026-11-09T10:00:00.300Z', null],
    ]);
    expect(got.stats).toMatchObject({ lines: 3, records: 3, rejected: 0, ignored: 0 });
    // Without --json-array: unusable, and told how to read it.
    expect((await load([answer])).rejected[0]).toEqual({ line: 1, reason: JSON_ARRAY_NOT_READ });
  });

  it('near misses: lines that start with a bracket are lines (kubectl --prefix, a text log, an array of numbers)', async () => {
    expect(jsonExportStart(Buffer.from(`[pod/mcp-0/mcp] ${JSON.stringify(created)}\n`))).toBe(false);
    expect(jsonExportStart(Buffer.from('[2026-11-09 10:00:00] INFO started\n'))).toBe(false);
    expect(jsonExportStart(Buffer.from('[1, 2]\n'))).toBe(false);
    expect(jsonExportStart(Buffer.from(`${JSON.stringify(created)}\n`))).toBe(false);
    expect(jsonExportStart(Buffer.from('{"events": "none"}\n'))).toBe(false);
    expect(jsonExportStart(Buffer.from('\ufeff \n [\n'))).toBe(undefined);
    expect(jsonExportStart(Buffer.from('{\n    "even'))).toBe(undefined);
    expect(jsonExportStart(Buffer.from('\ufeff\n[\n  {'))).toBe('array');
    expect(jsonExportStart(Buffer.from('{\n    "events": [\n'))).toBe('events');
    const got = await load([`[pod/mcp-0/mcp] ${JSON.stringify(created)}`, `[pod/mcp-0/mcp] ${JSON.stringify(opened)}`, '[1, 2]'], A);
    expect(got.stats).toMatchObject({ lines: 3, records: 2, ignored: 1, rejected: 0 });
  });
});
