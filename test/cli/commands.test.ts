import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { RULES } from '../../src/detect/rules/index.js';
import { openDb } from '../../src/store/db.js';
import { cli } from './run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('help and version', () => {
  it('--help lists every command with its purpose', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    for (const c of ['analyze', 'ingest', 'timeline', 'query', 'explain', 'rules']) expect(r.out).toMatch(new RegExp(`\\n  ${c} .*\\w`));
  });
  it('--version prints the package version', async () => {
    const r = await cli('--version');
    expect(r.out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('ingest then analyse a kept database', () => {
  it('keeps the timeline in --db, adds nothing on re-ingest, and later commands run on --db alone', async () => {
    const db = join(dir, 't.db');
    const first = await cli('ingest', 'samples/writers.ndjson', '--db', db);
    expect(first.code).toBe(0);
    expect(first.out).toContain('samples/writers.ndjson: 20 records from 20 lines (20 read, 0 ignored, 0 rejected)');
    expect(existsSync(db)).toBe(true);
    const again = await cli('ingest', 'samples/writers.ndjson', '--db', db);
    expect(again.err).toContain('already ingested');
    const count = await cli('query', 'SELECT count(*) AS n FROM records', '--db', db, '--format', 'json');
    expect(JSON.parse(count.out)).toEqual([{ n: 20 }]);
    expect((await cli('analyze', '--db', db)).code).toBe(1);
  });

  it('leaves a --db file with planner statistics, so that later queries plan per-session lookups', async () => {
    const log = join(dir, 'production.ndjson');
    await generate(log, 3000, { shape: 'production', seed: 1 });
    const db = join(dir, 'stats.db');
    expect((await cli('ingest', log, '--db', db)).code).toBe(0);
    const opened = openDb(db, { readonly: true });
    try {
      expect(opened.prepare("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'records'").pluck().get()).toBeGreaterThan(0);
    } finally {
      opened.close();
    }
  });

  it('a --db that does not exist is a clear error when no logs are given', async () => {
    const r = await cli('analyze', '--db', join(dir, 'missing.db'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('no such database');
  });

  it('no input at all is a usage error', async () => {
    expect((await cli('analyze')).code).toBe(2);
  });
});

describe('timeline', () => {
  it("tells one session's story with file:line on every row", async () => {
    const r = await cli('timeline', 'S-1001', 'samples/writers.ndjson');
    expect(r.code).toBe(0);
    const rows = r.out.split('\n').filter((l) => /^\d\d:\d\d:\d\d\.\d{3}/.test(l));
    expect(rows).toHaveLength(20);
    for (const row of rows) expect(row).toMatch(/samples\/writers\.ndjson:\d+$/);
    expect(r.out).toContain('UPGRADE (session S-1001, last-event-id 1007, resume) 200 → U2');
  });

  it('an unknown session names the sessions the log has', async () => {
    const r = await cli('timeline', 'nope', 'samples/writers.ndjson');
    expect(r.code).toBe(2);
    expect(r.err).toContain('session nope is not in the log (sessions: S-1001)');
  });

  it("shows the facts behind writers.ndjson's dual writer and cross-principal replay", async () => {
    const r = await cli('timeline', 'S-1001', 'samples/writers.ndjson');
    expect(r.out).toContain('A U1: U1/get (superseded while open at 2026-11-09T10:00:02.000Z by the upgrade to U2, samples/writers.ndjson:13; then closed: half_open) → U2/get (superseded while open at 2026-11-09T10:00:04.000Z by the upgrade to U3, samples/writers.ndjson:17; never closed) → U3/get');
    expect(r.out).toMatch(/→ U3 \[replayed 8, reemitted 0\] by tok:mallory, not the owner tok:erin +samples\/writers\.ndjson:17\n/);
    expect(r.out).toMatch(/→ U2 \[replayed 0, reemitted 0\] +samples\/writers\.ndjson:13\n/);
    const t = JSON.parse((await cli('timeline', 'S-1001', 'samples/writers.ndjson', '--format', 'json')).out);
    expect(t.lanes[0]).toMatchObject({ stream: 'U1', superseded_id: 13, superseded_file: 'samples/writers.ndjson', superseded_line: 13, superseded_by_stream: 'U2', superseded_while_open: true });
    // mallory's resumption from event 1000 names U1, but U2 was the lineage's live uplink: the second writer
    expect(t.lanes[1]).toMatchObject({ stream: 'U2', superseded_id: 17, superseded_line: 17, superseded_by_stream: 'U3', superseded_while_open: true });
    expect(t.lanes[2]).toMatchObject({ stream: 'U3', superseded_id: null, superseded_while_open: null });
  });

  it('a stream closed before the upgrade that resumed it reads as closed, not as superseded while open', async () => {
    const log = join(dir, 'resumed.ndjson');
    writeFileSync(log, [
      '{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"R1","principal":"alice"}',
      '{"ts":"2026-11-09T10:00:00.010Z","kind":"stream.opened","session":"R1","stream":"g1","via":"get"}',
      '{"ts":"2026-11-09T10:00:01.000Z","kind":"event.sent","session":"R1","stream":"g1","event_id":1}',
      // closed in the same millisecond as the upgrade, but logged before it
      '{"ts":"2026-11-09T10:00:03.000Z","kind":"stream.closed","session":"R1","stream":"g1","reason":"error"}',
      '{"ts":"2026-11-09T10:00:03.000Z","kind":"upgrade","session":"R1","last_event_id":1,"stream":"g1","new_stream":"g2","decision":"resume","status":200,"replayed":0,"reemitted":0,"principal":"alice"}',
    ].join('\n') + '\n');
    expect((await cli('timeline', 'R1', log)).out).toContain('A g1: g1/get (closed: error) → g2/get\n');
    const t = JSON.parse((await cli('timeline', 'R1', log, '--format', 'json')).out);
    expect(t.lanes[0]).toMatchObject({ stream: 'g1', superseded_id: 5, superseded_line: 5, superseded_while_open: false });
  });

  it('--format json gives lanes and records', async () => {
    const t = JSON.parse((await cli('timeline', 'S-1001', 'samples/writers.ndjson', '--format', 'json')).out);
    expect(t.lanes.map((l: { stream: string }) => l.stream)).toEqual(['U1', 'U2', 'U3']);
    expect(t.records[0]).toMatchObject({ file: 'samples/writers.ndjson', line: 1 });
  });
});

describe('analyze --max-findings', () => {
  it('caps the findings shown in full per rule, names the rest per session, and refuses a cap below 1', async () => {
    const r = await cli('analyze', 'samples/replay-integrity.ndjson', '--max-findings', '1');
    expect(r.out).toContain('… 1 more finding in 1 session: 7f3a91 (1)');
    expect(r.out).toContain('see them all: --rule engine-divergence --max-findings 2');
    const json = await cli('analyze', 'samples/replay-integrity.ndjson', '--max-findings', '1', '--format', 'json');
    expect(JSON.parse(json.out).findings.filter((f: { rule: string }) => f.rule === 'engine-divergence')).toHaveLength(2);
    const bad = await cli('analyze', 'samples/replay-integrity.ndjson', '--max-findings', '0');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--max-findings: expected a whole number of at least 1, got "0"');
  });

  it('caps the findings the HTML report carries per rule the same way, read from the findings table', async () => {
    const html = await cli('analyze', 'samples/replay-integrity.ndjson', '--max-findings', '1', '--format', 'html');
    expect(html.out).toContain('1 more finding of this rule, past the first 1, is not in this report');
    expect(html.out).toContain('<code>--rule engine-divergence --max-findings 2 --format html</code>');
    const whole = await cli('analyze', 'samples/replay-integrity.ndjson', '--format', 'html');
    expect(whole.out).not.toContain('not in this report');
    expect(whole.code).toBe(html.code);
  });
});

describe('query', () => {
  it('--list names the queries with the question each answers', async () => {
    const r = await cli('query', '--list');
    expect(r.out).toMatch(/^rejected +Input lines that were kept/m);
    expect(r.out).toMatch(/^dual-writer +\S/m);
  });

  it('--list offers only queries it can run: not the fact queries the detectors feed their own arguments', async () => {
    const r = await cli('query', '--list');
    expect(r.out).not.toMatch(/^stream-ends /m);
    expect(r.out).toMatch(/^404-storm +\S/m); // thresholds are bound, so a detector query is offered
    const run = await cli('query', 'stream-ends', 'samples/writers.ndjson');
    expect(run.code).toBe(2);
    expect(run.err).toContain('"stream-ends" is an internal query the detectors run with :sessions');
    expect(run.err).not.toContain('Missing named parameter');
  });

  it('runs a named query: rejected lines with file, line and reason', async () => {
    const r = await cli('query', 'rejected', 'samples/proxy/nginx-404-storm.ndjson', 'test/fixtures/bad-lines.ndjson', '--format', 'csv');
    expect(r.out.split('\n')[0]).toBe('file,line,reason,text');
    expect(r.out).toContain('test/fixtures/bad-lines.ndjson,2,"invalid JSON');
    expect(r.out).toContain('test/fixtures/bad-lines.ndjson,3,"unknown kind ""stream.opend"": did you mean ""stream.opened""?"');
    expect(r.out).toContain('test/fixtures/bad-lines.ndjson,4,');
  });

  it('runs a named query: the nodes, the one that fell quiet first first, with its last line and how long before the end', async () => {
    const rows = JSON.parse((await cli('query', 'nodes', 'samples/multi-node', '--format', 'json')).out);
    expect(rows).toEqual([
      { node: 'node-a', records: 11, sessions_created: 2, last_line: '2026-11-09T11:00:00.800Z', last_line_source: 'samples/multi-node/node-a.ndjson:11', quiet_before_end_ms: 200 },
      { node: 'node-b', records: 4, sessions_created: 1, last_line: '2026-11-09T11:00:01.000Z', last_line_source: 'samples/multi-node/node-b.ndjson:4', quiet_before_end_ms: 0 },
    ]);
    // a proxy writes no server line: it comes last, with no last line; records that name no node are a row of their own
    const dir = mkdtempSync(join(tmpdir(), 'rs-nodes-'));
    const log = join(dir, 'mixed.ndjson');
    const http = { ts: '2026-11-09T10:00:03.000Z', kind: 'http', node: 'edge', method: 'POST', path: '/mcp', status: 202, req_headers: { 'mcp-session-id': 'S1' } };
    const lines = [
      { ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S1', node: 'z' },
      { ts: '2026-11-09T10:00:01.000Z', kind: 'session.created', session: 'S2' },
      { ts: '2026-11-09T10:00:02.000Z', kind: 'session.created', session: 'S3', node: 'a' },
      http,
    ];
    writeFileSync(log, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const mixed = JSON.parse((await cli('query', 'nodes', log, '--format', 'json')).out);
    expect(mixed).toEqual([
      { node: 'z', records: 1, sessions_created: 1, last_line: '2026-11-09T10:00:00.000Z', last_line_source: `${log}:1`, quiet_before_end_ms: 2000 },
      { node: null, records: 1, sessions_created: 1, last_line: '2026-11-09T10:00:01.000Z', last_line_source: `${log}:2`, quiet_before_end_ms: 1000 },
      { node: 'a', records: 1, sessions_created: 1, last_line: '2026-11-09T10:00:02.000Z', last_line_source: `${log}:3`, quiet_before_end_ms: 0 },
      { node: 'edge', records: 1, sessions_created: 0, last_line: null, last_line_source: null, quiet_before_end_ms: null },
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a named query: lines read once because they repeat an earlier line, with the line they repeat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-repeated-'));
    const log = join(dir, 'shipped-twice.ndjson');
    const created = JSON.stringify({ ts: '2026-11-09T10:00:00.007Z', kind: 'session.created', session: 'S1' });
    const sent = JSON.stringify({ ts: '2026-11-09T10:00:01.013Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1 });
    writeFileSync(log, [created, sent, sent, created].join('\n') + '\n');
    const r = await cli('query', 'repeated', log, '--format', 'csv');
    expect(r.out.split('\n').slice(0, 3)).toEqual(['file,line,of_file,of_line', `${log},3,${log},2`, `${log},4,${log},1`]);
    const ingest = await cli('ingest', log);
    expect(ingest.out).toContain('2 records from 4 lines (2 read, 2 ignored, of which 2 repeated an earlier line, 0 rejected)');
    rmSync(dir, { recursive: true, force: true });
  });

  it("a detector query takes analyze's thresholds, and shows times and evidence as a person reads them", async () => {
    const rows = JSON.parse((await cli('query', '404-storm', 'samples/http-edge.ndjson', '--format', 'json')).out);
    expect(rows[0]).toMatchObject({ session: 'd00d-77', at: '2026-11-09T10:00:33.800Z' });
    expect(rows[0].evidence).toMatch(/^samples\/http-edge\.ndjson:7 samples\/http-edge\.ndjson:8 /);
    expect(JSON.parse((await cli('query', '404-storm', 'samples/http-edge.ndjson', '--format', 'json', '--storm-count', '7')).out)).toEqual([]);
  });

  it('refuses a statement that would write', async () => {
    const r = await cli('query', 'DELETE FROM records', 'samples/clean.ndjson');
    expect(r.code).toBe(2);
    expect(r.err).toContain('read-only');
  });

  it('a staged detector query (TEMP tables first) runs in the query process too', async () => {
    const rows = JSON.parse((await cli('query', 'duplicate-tool-call', 'samples/http-edge.ndjson', '--format', 'json')).out);
    expect(rows).toMatchObject([{ session: 'd00d-78', how: 'ended', tool: 'send_invoice' }]);
    expect(rows[0].evidence).toMatch(/^samples\/http-edge\.ndjson:3 samples\/http-edge\.ndjson:6 samples\/http-edge\.ndjson:14$/);
  });

  it('a detector query runs standalone with its default thresholds', async () => {
    const r = await cli('query', '404-storm', 'samples/http-edge.ndjson', '--format', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toHaveLength(1);
  });
});

describe('explain -n under --session and --rule', () => {
  it('numbers the findings the filters keep, as the filtered text report does', async () => {
    const report = await cli('analyze', 'samples/http-edge.ndjson', '--fail-on', 'never', '--session', 'd00d-78');
    expect(report.out).toMatch(/^ {4}#1 {2}\S+ {2}session d00d-78$/m);
    expect((await cli('explain', 'samples/http-edge.ndjson', '--session', 'd00d-78', '-n', '1')).out).toMatch(/^#1 .*\n.*Session d00d-78, /);
    // Near miss: without the filter, the same finding is #2 of the whole report.
    expect((await cli('explain', 'samples/http-edge.ndjson', '-n', '2')).out).toMatch(/^#2 .*\n.*Session d00d-78, /);
  });

  it('past the end, says how many findings the filters keep and that -n counts among them', async () => {
    const r = await cli('explain', 'samples/http-edge.ndjson', '--session', 'd00d-78', '-n', '2');
    expect(r.code).toBe(2);
    expect(r.err).toBe('resumescope: -n 2: 1 finding matches --session d00d-78; -n counts among them (without the filters, -n numbers the whole report)\n');
    const both = await cli('explain', 'samples/http-edge.ndjson', '--session', 'd00d-77', '--rule', '404-storm', '-n', '3');
    expect(both.err).toBe('resumescope: -n 3: 1 finding matches --rule 404-storm --session d00d-77; -n counts among them (without the filters, -n numbers the whole report)\n');
    expect((await cli('explain', 'samples/http-edge.ndjson', '-n', '4')).err).toBe('resumescope: -n 4: the report has only 3 findings\n');
    expect((await cli('explain', 'samples/clean.ndjson', '-n', '1')).err).toBe('resumescope: -n 1: the report has no findings\n');
  });

});

describe('explain and rules', () => {
  it('explains the Nth finding with its witness lines', async () => {
    const r = await cli('explain', 'samples/writers.ndjson', '--rule', 'dual-writer');
    expect(r.code).toBe(0);
    expect(r.out).toContain('dual-writer');
    expect(r.out).toContain('samples/writers.ndjson:13');
  });
  it('-n N explains the finding the text report numbers #N, whatever order the findings were found in', async () => {
    const report = await cli('analyze', 'samples/writers.ndjson', '--fail-on', 'never');
    const numbered = [...report.out.matchAll(/^ {4}#(\d+) {2}(\S+) {2}session (\S+)$/gm)];
    expect(numbered.map((m) => Number(m[1]))).toEqual(numbered.map((_, i) => i + 1));
    expect(numbered.length).toBeGreaterThan(2);
    for (const [, n, at, session] of numbered) {
      const r = await cli('explain', 'samples/writers.ndjson', '-n', n!);
      expect(r.out).toMatch(new RegExp(`^#${n} `));
      expect(r.out).toContain(`Session ${session}, at ${at}.`);
    }
  });
  it('explain <rule-id>, with no log: the rule explained on its own', async () => {
    const r = await cli('explain', 'silent-truncation');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^silent-truncation \(error\): /);
    expect(r.out).toContain('What a finding means\n  The server accepted a stream resumption');
    expect(r.out).toContain('More, with a log that fires it and a near miss: docs/rules.md#silent-truncation\n');
  });
  it('explain <mistyped rule id>, no such file either: the rule it was probably meant to be, as --rule says, exit 2', async () => {
    for (const [typed, meant] of [['dual-writr', 'dual-writer'], ['404-Storm', '404-storm'], ['silent-truncaton', 'silent-truncation']]) {
      const r = await cli('explain', typed!);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`unknown rule "${typed}" (did you mean ${meant}?)`);
      expect(r.err).not.toContain('unusable');
      expect(r.out).toBe('');
    }
  });
  it('near miss: a missing path stays an unusable input, whether it looks like a path or is near no rule id', async () => {
    for (const missing of ['logs/dual-writr', 'dual-writer.ndjson', 'server-logs', 'a']) {
      const r = await cli('explain', missing);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`${missing}: unusable: cannot read (ENOENT`);
      expect(r.err).not.toContain('unknown rule');
    }
  });
  it('-n beyond the findings is a usage error', async () => {
    expect((await cli('explain', 'samples/clean.ndjson', '-n', '3')).code).toBe(2);
  });
  it('rules lists every rule id of the catalogue with its severity', async () => {
    const r = await cli('rules');
    expect(r.out.trim().split('\n').map((l) => l.split(/\s+/)[0])).toEqual(RULES.map((rule) => rule.id));
    expect(r.out).toMatch(/^stranded-response +error/m);
    expect(r.out).toMatch(/^cross-principal-replay +critical/m);
  });
});
