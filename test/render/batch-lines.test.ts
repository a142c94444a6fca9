import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { lineTextResolver, resolveEvidence } from '../../src/detect/evidence.js';
import { fileSource } from '../../src/read/sources.js';
import { CitedLine, recordQuote, type LineRef } from '../../src/model/record.js';
import { summarizeLine, type SummaryRecord } from '../../src/render/evidence-summary.js';
import { lineRecordsResolver } from '../../src/store/line-records.js';
import { LineTable } from '../../src/render/html/findings.js';

// An OTLP export request is one line of thousands of records (the collector writes 8,192 to a line):
// a quote of it reads a few of them, and shows the record the finding cites, not the line's first,
// nor the whole line once per citation.

const dir = mkdtempSync(join(tmpdir(), 'rs-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const attr = (key: string, v: string | number) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });
const otlp = (ms: number, fields: Record<string, string | number>) => ({
  timeUnixNano: String((Date.parse('2026-11-09T10:00:00Z') + ms) * 1e6),
  attributes: Object.entries(fields).map(([k, v]) => attr(k, v)),
});
const request = (records: object[]) => JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });

const batch = [
  otlp(0, { kind: 'session.created', session: 'S1' }),
  otlp(1, { kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }),
  ...Array.from({ length: 30 }, (_, i) => otlp(2 + i, { kind: 'event.sent', session: 'S1', stream: 'g1', event_id: i + 1 })),
  otlp(40, { kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: 'g2', last_event_id: '7', decision: 'resume', status: 200, replayed: 23 }),
  ...Array.from({ length: 5 }, (_, i) => otlp(41 + i, { kind: 'event.replayed', session: 'S1', stream: 'g2', event_id: i + 8 })),
];
const small = [otlp(50, { kind: 'stream.closed', session: 'S1', stream: 'g2', reason: 'client' }), otlp(51, { kind: 'session.terminated', session: 'S1' })];

async function store() {
  const file = join(dir, 'export.ndjson');
  writeFileSync(file, request(batch) + '\n' + request(small) + '\n');
  const { db } = await loadWorkspace([fileSource(file)]);
  const id = (line: number, kind: string) => (db.prepare('SELECT min(id) AS id FROM records WHERE line = ? AND kind = ?').get(line, kind) as { id: number }).id;
  const every = (line: number) => db.prepare('SELECT * FROM records WHERE line = ? ORDER BY id').all(line) as SummaryRecord[];
  return { db, file, id, every };
}

describe('quoting a line of many records', () => {
  it('summarizes the record the finding cites, and counts the rest of its line by kind', async () => {
    const { db, id } = await store();
    const refs = resolveEvidence(db, [id(1, 'upgrade')]);
    const ref = refs.get(id(1, 'upgrade'))!.ref;
    const text = summarizeLine(lineRecordsResolver(db)(ref)!, { session: 'S1', at: '2026-11-09T10:00:00.040Z' });
    expect(text).toMatch(/^10:00:00\.040 upgrade resume 200 from 7 g1→g2 replayed=23/);
    expect(lineRecordsResolver(db)(ref)!.more).toEqual(new Map([['session.created', 1], ['stream.opened', 1], ['event.sent', 30], ['event.replayed', 5]]));
    db.close();
  });

  it('without a cited record, reads as the whole line did: its first record and every other counted', async () => {
    const { db, file, every } = await store();
    const read = lineRecordsResolver(db);
    const quoted = read({ file, line: 1 })!;
    expect(quoted.records.length).toBeLessThan(batch.length);
    expect(summarizeLine(quoted)).toBe(summarizeLine({ records: every(1) }));
    expect(read({ file, line: 1 })).toEqual(quoted);
    db.close();
  });

  it('lists a line of a few records whole, whichever record is cited', async () => {
    const { db, file, id, every } = await store();
    const cited = resolveEvidence(db, [id(2, 'session.terminated')]).get(id(2, 'session.terminated'))!.ref;
    expect(lineRecordsResolver(db)(cited)).toEqual({ records: every(2).map((r) => expect.objectContaining({ kind: r.kind, ts_ms: r.ts_ms })) });
    expect(lineRecordsResolver(db)({ file, line: 2 })!.more).toBeUndefined();
    db.close();
  });

  it('gives reports the cited line as file and line only', async () => {
    const { db, file, id } = await store();
    const ref = resolveEvidence(db, [id(1, 'upgrade')]).get(id(1, 'upgrade'))!.ref;
    expect(ref.record).toBe(id(1, 'upgrade'));
    expect(ref).toEqual({ file, line: 1 });
    expect(JSON.parse(JSON.stringify(ref))).toEqual({ file, line: 1 });
    db.close();
  });

  it('quotes the cited record of a batch line, as stored and saying so, and any other line whole', async () => {
    const { db, file, id } = await store();
    const text = lineTextResolver(db);
    const upgrade = resolveEvidence(db, [id(1, 'upgrade')]).get(id(1, 'upgrade'))!.ref;
    const quoted = text(upgrade)!;
    expect(quoted).toMatch(/^\(record 33 of 38 on this line, as read\) \{/);
    expect(JSON.parse(quoted.slice(quoted.indexOf('{')))).toEqual({
      ts: '2026-11-09T10:00:00.040Z', kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: 'g2',
      last_event_id: '7', decision: 'resume', status: 200, replayed: 23,
    });
    expect(text({ file, line: 1 })).toBe(request(batch));
    const closed = resolveEvidence(db, [id(2, 'stream.closed')]).get(id(2, 'stream.closed'))!.ref;
    expect(text(closed)).toBe(request(small));
    db.close();
  });

  it('gives the HTML report an entry per cited record of a batch line, and one per line otherwise', () => {
    // line 1 is a batch (quoted by record), line 2 a proxy line of two records (quoted whole)
    const lineText = (ref: LineRef) =>
      ref.line === 1 && ref.record !== undefined ? recordQuote(ref.record, 8192, { kind: 'event.sent', event_id: String(ref.record) }) : `{"line":${ref.line}}`;
    const table = new LineTable(lineText);
    const at = [new CitedLine('f', 1, 7), new CitedLine('f', 1, 9), new CitedLine('f', 1, 7), new CitedLine('f', 2, 20), new CitedLine('f', 2, 21)].map((r) => table.indexOf(r));
    expect(at).toEqual([0, 1, 0, 2, 2]);
    expect(table.lines.map(([, line, text]) => [line, text])).toEqual([
      [1, '(record 7 of 8192 on this line, as read) {"kind":"event.sent","event_id":"7"}'],
      [1, '(record 9 of 8192 on this line, as read) {"kind":"event.sent","event_id":"9"}'],
      [2, '{"line":2}'],
    ]);
  });

  it('keeps node= when a long line is cut: the fields before it go first', () => {
    const upgrade: SummaryRecord = {
      kind: 'upgrade', ts_ms: Date.parse('2026-12-07T10:00:05.000Z'), session: 'S-W', decision: 'attach', status: 200, last_event_id: null,
      new_stream: 'h1', replayed: 0, reemitted: 0, cancelled: 0, node: 'mcp-b',
    };
    const multi = { session: 'S-W', at: '2026-12-07T10:00:05.000Z', keepNode: true };
    const text = summarizeLine({ records: [upgrade] }, multi);
    // the line a two-writer finding cites for the node that took over: one character too long, cancelled=0 goes
    expect(text).toBe('10:00:05.000 upgrade attach 200 from none →h1 replayed=0 reemitted=0 … node=mcp-b');
    const long = summarizeLine({ records: [{ ...upgrade, reason: 'a reason long enough to cut the line' }] }, multi);
    expect(long.length).toBeLessThanOrEqual(90);
    expect(long).toMatch(/ … node=mcp-b$/);
    // one that fits keeps its node where it was
    expect(summarizeLine({ records: [{ ...upgrade, cancelled: null }] }, multi)).toBe('10:00:05.000 upgrade attach 200 from none →h1 replayed=0 reemitted=0 node=mcp-b');
    // near miss: a line without a node, or a log of one node (the node says nothing there), is cut at its end as before
    expect(summarizeLine({ records: [{ ...upgrade, node: null, reason: 'a reason long enough to cut the line' }] }, multi)).toMatch(/ …$/);
    expect(summarizeLine({ records: [upgrade] }, { session: 'S-W', at: '2026-12-07T10:00:05.000Z' })).toBe(
      '10:00:05.000 upgrade attach 200 from none →h1 replayed=0 reemitted=0 cancelled=0 …',
    );
  });
});
