import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-mapping-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mapping = {
  name: 'mylb',
  detect: { has: ['when', 'verb'] },
  kind: 'http',
  fields: {
    ts: 'when',
    method: 'verb',
    path: 'target',
    status: 'code',
    'req_headers.mcp-session-id': 'sid',
    'req_headers.last-event-id': 'lei',
    'resp_headers.content-type': 'ctype',
  },
};

describe('--mapping', () => {
  it('reads a log shape of your own, detected per file, and judges it like any proxy log', async () => {
    const m = join(dir, 'mylb.json');
    writeFileSync(m, JSON.stringify(mapping));
    const log = join(dir, 'lb.log');
    // A Last-Event-ID without a session, accepted with an event stream: event-id-without-session.
    writeFileSync(log, JSON.stringify({ when: '2026-11-09T10:00:00Z', verb: 'GET', target: '/mcp', code: 200, lei: '41', ctype: 'text/event-stream' }) + '\n');
    const r = await cli('analyze', log, '--mapping', m, '--format', 'json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.findings.map((f: { rule: string }) => f.rule)).toContain('event-id-without-session');
    expect(report.findings[0].evidence).toEqual([{ file: log, line: 1 }]);
    const forced = await cli('analyze', log, '--mapping', m, '--input-format', 'mylb', '--fail-on', 'never');
    expect(forced.code).toBe(0);
  });

  it('a broken mapping file is a usage error naming the key', async () => {
    const m = join(dir, 'bad.json');
    writeFileSync(m, JSON.stringify({ ...mapping, fields: { ...mapping.fields, sesion: 'sid' } }));
    const r = await cli('analyze', 'samples/clean.ndjson', '--mapping', m);
    expect(r.code).toBe(2);
    expect(r.err).toContain('sesion');
  });

  it('an unknown --input-format is a usage error listing the known ones', async () => {
    const r = await cli('analyze', 'samples/clean.ndjson', '--input-format', 'haproxy');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown format "haproxy" \(known: auto, resumescope, nginx, envoy, otlp\)/);
  });
});
