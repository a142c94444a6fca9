import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { fileSource } from '../../src/read/sources.js';
import { logSource } from '../helpers/logs.js';
import { load, ofKind } from './rows.js';

// Which format each file is read as, what forcing another one does, and the
// shipped samples under samples/proxy/.

const SAMPLES = new URL('../../samples/proxy/', import.meta.url);
const sampleLines = (name: string) => readFileSync(new URL(name, SAMPLES), 'utf8').trimEnd().split('\n');

const NGINX = sampleLines('nginx-404-storm.ndjson');
const ENVOY = sampleLines('envoy-resume.ndjson');
const OTLP = sampleLines('otlp-export.json');
const SPEC = [
  JSON.stringify({ ts: '2026-11-09T10:00:00.000Z', kind: 'session.created', session: 'S1' }),
  JSON.stringify({ ts: '2026-11-09T10:00:00.010Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }),
];

describe('per-file auto-detection', () => {
  it('reads each file of one run in its own format', async () => {
    const ws = await loadWorkspace([
      logSource(NGINX, 'edge-nginx.ndjson'),
      logSource(ENVOY, 'edge-envoy.ndjson'),
      logSource(OTLP, 'collector.json'),
      logSource(SPEC, 'server.ndjson'),
    ]);
    try {
      expect(ws.sources.map((s) => [s.name, s.format, s.rejected])).toEqual([
        ['edge-nginx.ndjson', 'nginx', 0],
        ['edge-envoy.ndjson', 'envoy', 0],
        ['collector.json', 'otlp', 0],
        ['server.ndjson', 'resumescope', 0],
      ]);
      const formats = ws.db.prepare('SELECT name, format FROM sources ORDER BY id').all();
      expect(formats).toEqual(ws.sources.map((s) => ({ name: s.name, format: s.format })));
    } finally {
      ws.db.close();
    }
  });

  it('locks a file on its first recognizable line: application lines before it are ignored, not guessed', async () => {
    const { stats } = await load([JSON.stringify({ level: 'info', msg: 'nginx reloaded' }), ...ENVOY]);
    expect(stats.format).toBe('envoy');
    expect(stats.ignored).toBe(1 + 2); // the application line, plus the sample's own two non-MCP lines
  });
});

describe('forcing a format', () => {
  const cases: [string, string[], string][] = [
    ['nginx lines read as envoy', NGINX, 'envoy'],
    ['envoy lines read as otlp', ENVOY, 'otlp'],
    ['otlp lines read as nginx', OTLP, 'nginx'],
    ['spec lines read as nginx', SPEC, 'nginx'],
  ];
  it.each(cases)('%s: every line is counted, none stored as a wrong record', async (_what, lines, forced) => {
    const { stats, rows } = await load([...lines, '{"broken": '], { inputFormat: forced });
    const foreign = lines === SPEC ? 0 : lines.length;
    expect(rows.filter((r) => r.kind === 'http' || r.origin === 'proxy')).toHaveLength(0);
    expect(stats.lines).toBe(lines.length + 1);
    expect(stats.recordLines + stats.ignored + stats.rejected).toBe(stats.lines);
    expect(stats.ignored).toBe(foreign);
    expect(stats.rejected).toBe(1);
  });

  it('forcing the right format reads the same records as detecting it', async () => {
    const detected = await load(NGINX);
    const forced = await load(NGINX, { inputFormat: 'nginx' });
    expect(forced.rows).toEqual(detected.rows);
    expect(forced.stats.format).toBe('nginx');
  });

  it('an unknown format name makes the file unreadable, naming the known ones', async () => {
    const { stats } = await load(NGINX, { inputFormat: 'haproxy' });
    expect(stats).toMatchObject({ records: 0, readError: expect.stringMatching(/unknown input format "haproxy" \(known: resumescope, nginx, envoy, otlp\)/) });
  });
});

describe('samples/proxy', () => {
  it('nginx-404-storm: response POSTs for a reaped session get 404 five times and more within ten seconds', async () => {
    const ws = await loadWorkspace([fileSource(new URL('nginx-404-storm.ndjson', SAMPLES).pathname)]);
    try {
      const [first] = ws.db.prepare("SELECT session FROM records WHERE kind = 'session.created' ORDER BY ts_ms LIMIT 1").all() as { session: string }[];
      const storm = ws.db
        .prepare("SELECT COUNT(*) AS n, MAX(ts_ms) - MIN(ts_ms) AS span FROM http WHERE session = ? AND http_method = 'POST' AND status = 404")
        .get(first!.session) as { n: number; span: number };
      expect(storm.n).toBeGreaterThanOrEqual(5);
      expect(storm.span).toBeLessThanOrEqual(10_000);
      const answers = ws.db.prepare("SELECT DISTINCT request_id, status FROM records WHERE kind = 'request.answered' AND session = ?").all(first!.session);
      expect(answers).toEqual([{ request_id: '3', status: 404 }]);
      const after = ws.db
        .prepare("SELECT kind, decision, status FROM records WHERE kind IN ('upgrade', 'session.created') AND ts_ms > (SELECT MAX(ts_ms) FROM http WHERE status = 404 AND http_method = 'POST') ORDER BY ts_ms, id")
        .all();
      // The client gives up resuming, then starts over with a new session.
      expect(after).toEqual([
        { kind: 'upgrade', decision: 'reject', status: 404 },
        { kind: 'session.created', decision: null, status: null },
        { kind: 'upgrade', decision: 'fresh', status: 200 },
        { kind: 'upgrade', decision: 'attach', status: 200 },
      ]);
    } finally {
      ws.db.close();
    }
  });

  it('envoy-resume: an accepted resumption on one upstream, a 404 after failing over to another', async () => {
    const { rows, stats } = await load(ENVOY);
    expect(stats).toMatchObject({ format: 'envoy', rejected: 0, ignored: 2 });
    const reconnects = ofKind(rows, 'upgrade').filter((r) => r.last_event_id !== null);
    expect(reconnects.map((r) => [r.decision, r.status, r.node])).toEqual([
      ['resume', 200, '10.0.2.11:8080'],
      ['reject', 404, '10.0.2.12:8080'],
    ]);
    expect(ofKind(rows, 'session.created').map((r) => r.node)).toEqual(['10.0.2.11:8080', '10.0.2.12:8080']);
  });

  it('otlp-export: a server resumption from OTLP batches, application records skipped', async () => {
    const { rows, stats } = await load(OTLP);
    expect(stats).toMatchObject({ format: 'otlp', lines: 3, recordLines: 2, ignored: 1, rejected: 0 });
    expect(rows.map((r) => r.kind)).toEqual([
      'session.created', 'stream.opened', 'event.sent', 'event.sent', 'event.sent', 'stream.closed', 'upgrade', 'stream.opened',
    ]);
    expect(new Set(rows.map((r) => r.node))).toEqual(new Set(['mcp-tools-7d9f8-x2k4q']));
    expect(ofKind(rows, 'upgrade')[0]).toMatchObject({ decision: 'resume', last_event_id: '2', status: 200 });
  });
});
