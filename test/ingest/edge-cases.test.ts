import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/read/entries.js';
import { T0, ingestSources, outcomeOf, rows } from './support.js';

describe('a UTF-8 byte order mark', () => {
  it('is not part of the first line', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\n{"b":2}\n')]);
    const lines = [];
    for await (const l of splitLines(Readable.from([bytes]))) lines.push(l);
    expect(lines).toEqual([
      { line: 1, text: '{"a":1}', offset: 3, bytes: 7 },
      { line: 2, text: '{"b":2}', offset: 11, bytes: 7 },
    ]);
  });

  it('lets the first record of a Windows export through', async () => {
    const text = '\uFEFF' + JSON.stringify({ ts: T0, kind: 'session.created', session: 'S1' }) + '\n';
    const ws = await ingestSources([{ name: 'bom.ndjson', path: null, open: () => Readable.from([Buffer.from(text)]) }]);
    expect(ws.sources[0]).toMatchObject({ lines: 1, recordLines: 1, rejected: 0 });
    expect(rows(ws.db, "SELECT kind FROM records")).toEqual([{ kind: 'session.created' }]);
  });
});

describe('a proxy POST that carried Last-Event-ID', () => {
  const post = (status: number, contentType: string) =>
    outcomeOf({
      ts: T0, kind: 'http', method: 'POST', path: '/mcp', status,
      req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '7' },
      resp_headers: { 'content-type': contentType },
    });

  it('answered with plain JSON resumed nothing: no upgrade is inferred', () => {
    const out = post(200, 'application/json');
    expect(out.type).toBe('records');
    if (out.type === 'records') expect(out.records.map((r) => r.kind)).toEqual(['http']);
  });

  it('answered with an event stream is an accepted resumption', () => {
    const out = post(200, 'text/event-stream');
    if (out.type !== 'records') throw new Error('expected records');
    expect(out.records.find((r) => r.kind === 'upgrade')).toMatchObject({ decision: 'resume', lastEventId: '7', status: 200 });
  });

  it('rejected with 404 is a rejected resumption', () => {
    const out = post(404, 'application/json');
    if (out.type !== 'records') throw new Error('expected records');
    expect(out.records.find((r) => r.kind === 'upgrade')).toMatchObject({ decision: 'reject', status: 404 });
  });
});
