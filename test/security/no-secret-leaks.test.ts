import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { SECRET, writeSecretLogs, type SecretLogs } from './secret-logs.js';

// Issue 13: credentials are never stored or printed. Logs carrying them in
// every place a log can (proxy request and response headers, spec http
// req_headers, token fields on server records, nested in wrappers, nginx,
// Envoy and OTLP lines, rejected and broken lines) go through every command
// and output format, and the database file; not one secret may come out.

let dir: string;
let logs: SecretLogs;
let all: string[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-secrets-'));
  logs = writeSecretLogs(dir);
  all = [...logs.spec, logs.nginx, logs.envoy, logs.otlp, logs.broken];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const leaks = (text: string) => text.split(SECRET).length - 1;

describe('no credential leaves the logs', () => {
  it('the inputs do carry the secrets (the test can fail)', () => {
    for (const f of all) expect(leaks(readFileSync(f, 'utf8')), f).toBeGreaterThan(0);
  });

  for (const format of ['text', 'json', 'sarif', 'junit', 'markdown', 'html']) {
    it(`analyze -f ${format}`, async () => {
      const r = await cli('analyze', ...all, '-f', format, '--fail-on', 'never');
      expect(r.out.length).toBeGreaterThan(100);
      expect(leaks(r.out + r.err)).toBe(0);
    });
  }

  it('explain, whatif, query over records and rejected lines', async () => {
    for (const args of [
      ['explain', ...all],
      ['whatif', ...all, '--retention', '1s'],
      ['query', 'SELECT * FROM records', ...all, '-f', 'json'],
      ['query', 'SELECT * FROM records', ...all, '-f', 'csv'],
      ['query', 'rejected', ...all],
      ['query', 'SELECT * FROM rejected_lines', ...all, '-f', 'json'],
    ]) {
      const r = await cli(...args);
      expect(r.out.length, args[0]).toBeGreaterThan(100);
      expect(leaks(r.out + r.err), args.slice(0, 2).join(' ')).toBe(0);
    }
  });

  it('the rejected and broken lines are kept, redacted, with their reasons', async () => {
    const r = await cli('query', 'SELECT line, reason, text FROM rejected_lines', logs.broken, '-f', 'json');
    const rejected = JSON.parse(r.out) as { line: number; reason: string; text: string }[];
    expect(rejected.length).toBe(4);
    for (const x of rejected) expect(x.text).toContain('[redacted]');
    expect(rejected.map((x) => x.reason)).toContainEqual(expect.stringMatching(/^invalid JSON/));
  });

  it('a CSV download read without --csv: its rows are rejected, their credential columns redacted', async () => {
    const csv = join(dir, 'download.csv');
    const t = '2026-11-09T10:00:00.000Z';
    writeFileSync(csv, ['ts,kind,session,password,"X-Api-Key",note', `${t},session.created,S1,${SECRET}-pw,"${SECRET},k""ey",plain note`, `${t},upgrade,S1,,${SECRET}-k2,x`].join('\n') + '\n');
    const r = await cli('query', 'SELECT line, text FROM rejected_lines', csv, '-f', 'json');
    const rows = JSON.parse(r.out) as { line: number; text: string }[];
    expect(rows.map((x) => x.text)).toEqual([
      'ts,kind,session,password,"X-Api-Key",note',
      `${t},session.created,S1,[redacted],[redacted],plain note`,
      `${t},upgrade,S1,,[redacted],x`,
    ]);
    expect(leaks(r.err)).toBe(0);
    // Near miss: a header naming no credential leaves its rows as they were.
    const plain = join(dir, 'plain.csv');
    writeFileSync(plain, ['ts,kind,session,note', `${t},upgrade,S1,${SECRET}-not-a-credential-column`].join('\n') + '\n');
    const p = JSON.parse((await cli('query', 'SELECT text FROM rejected_lines WHERE line = 2', plain, '-f', 'json')).out) as { text: string }[];
    expect(p[0]!.text).toBe(`${t},upgrade,S1,${SECRET}-not-a-credential-column`);
  });

  it('timeline of every session, text and json', async () => {
    const sessions = JSON.parse((await cli('query', 'SELECT DISTINCT session FROM records WHERE session IS NOT NULL', ...all, '-f', 'json')).out) as { session: string }[];
    expect(sessions.length).toBeGreaterThan(5);
    for (const { session } of sessions) {
      for (const format of ['text', 'json']) {
        const r = await cli('timeline', session, ...all, '-f', format);
        expect(leaks(r.out + r.err), session).toBe(0);
      }
    }
  });

  it('ingest --db: the database file (and its WAL) hold none, and reading it back shows none', async () => {
    const db = join(dir, 'timeline.db');
    const r = await cli('ingest', ...all, '--db', db);
    expect(leaks(r.out + r.err)).toBe(0);
    for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) expect(leaks(readFileSync(f).toString('latin1')), f).toBe(0);
    const back = await cli('query', 'SELECT raw FROM records', '--db', db, '-f', 'json');
    expect(back.out).toContain('[redacted]');
    expect(leaks(back.out)).toBe(0);
  });

  it('redaction changes no finding: the reports equal those of the samples the logs were made from', async () => {
    const samples = ['samples/writers.ndjson', 'samples/http-edge.ndjson', 'samples/session-continuity.ndjson', 'samples/proxy/nginx-404-storm.ndjson', 'samples/proxy/envoy-resume.ndjson', 'samples/proxy/otlp-export.json'];
    for (const [i, sample] of samples.entries()) {
      const mine = [...logs.spec, logs.nginx, logs.envoy, logs.otlp][i]!;
      const want = JSON.parse((await cli('analyze', sample, '-f', 'json')).out) as { summary: { by_rule: unknown; records: number } };
      const got = JSON.parse((await cli('analyze', mine, '-f', 'json')).out) as { summary: { by_rule: unknown; records: number } };
      expect(got.summary.by_rule, sample).toEqual(want.summary.by_rule);
      expect(got.summary.records, sample).toBe(want.summary.records);
    }
  });

  it('evidence quotes the redacted line with --raw, which still reads as the record', async () => {
    const r = await cli('analyze', logs.spec[0]!, '--fail-on', 'never', '--raw');
    expect(r.out).toMatch(/"token":"\[redacted\]"/);
    expect(r.out).toMatch(/"kind":"/);
    expect(leaks(r.out)).toBe(0);
    // The default summaries are built from the stored columns, which hold no credential either.
    const summed = await cli('analyze', ...all, '--fail-on', 'never');
    expect(summed.out).toMatch(/^ {8}\S+:\d+ {2}\d\d:\d\d:\d\d\.\d{3} [a-z.]+/m);
    expect(leaks(summed.out)).toBe(0);
  });
});
