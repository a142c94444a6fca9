import { describe, expect, it } from 'vitest';
import { T0, T0_MS, outcomeOf, recordOf, rejectionOf } from './support.js';

// log-format.md: fields may sit one level down in `mcp`, `data`, `fields` or
// `attributes`; the top level is looked at first; dotted names are accepted
// flat and nested; an alias counts only where its value has the expected type.

describe('wrapper objects', () => {
  it.each(['mcp', 'data', 'fields', 'attributes'])('fields inside %s are found', (wrapper) => {
    const r = recordOf({ level: 30, time: T0_MS, msg: 'event.sent', [wrapper]: { session: 'S1', stream: 'g1', event_id: 3 } });
    expect(r).toMatchObject({ kind: 'event.sent', tsMs: T0_MS, session: 'S1', stream: 'g1', eventId: '3' });
  });

  it("reads a Google Cloud Logging export's entry: the line in jsonPayload, the time at the top", () => {
    const r = recordOf({
      insertId: '1x9k', timestamp: T0, receiveTimestamp: '2026-11-09T10:00:09.000Z', severity: 'INFO', logName: 'projects/p/logs/stdout',
      resource: { type: 'k8s_container', labels: { pod_name: 'mcp-0', container_name: 'mcp' } },
      jsonPayload: { msg: 'upgrade', hostname: 'mcp-0', session: 'S1', last_event_id: 5, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200 },
    });
    expect(r).toMatchObject({ kind: 'upgrade', tsMs: T0_MS, node: 'mcp-0', session: 'S1', lastEventId: '5', decision: 'resume', status: 200 });
  });

  it("takes a Cloud Logging entry's pod (or VM, or Cloud Run instance) for the node where the record names none, and the record's own where it does", () => {
    const entry = (payload: object, labels: object) => ({ timestamp: T0, resource: { type: 'k8s_container', labels }, jsonPayload: payload });
    const created = { kind: 'session.created', session: 'S1' };
    expect(recordOf(entry(created, { pod_name: 'mcp-7d9f5-x2kq8', namespace_name: 'billing' })).node).toBe('mcp-7d9f5-x2kq8');
    expect(recordOf(entry(created, { instance_id: '4417362514032917214', zone: 'europe-west1-b' })).node).toBe('4417362514032917214');
    expect(recordOf(entry({ ...created, node: 'mcp-a' }, { pod_name: 'mcp-7d9f5-x2kq8' })).node).toBe('mcp-a');
    // Cloud Run: the resource names the revision its instances share; the entry's label names the instance.
    const run = { type: 'cloud_run_revision', labels: { service_name: 'mcp', revision_name: 'mcp-00042-x7q', location: 'europe-west1' } };
    const instance = '0069c7a98874a1b4a2c6f10a2c7e8e1d0cf4c5d8e2b1a9c47f3e8d2b6a1c0f9e8d7b6a5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f';
    expect(recordOf({ timestamp: T0, resource: run, labels: { instanceId: instance }, jsonPayload: created }).node).toBe(instance);
    // near misses: resource labels beside no jsonPayload (the record at the top level) name no node, nor
    // does a revision without its instance, nor an instance label on an object that is no Cloud Logging entry
    expect(recordOf({ ts: T0, ...created, resource: { labels: { pod_name: 'mcp-0' } } }).node).toBeUndefined();
    expect(recordOf({ timestamp: T0, resource: run, jsonPayload: created }).node).toBeUndefined();
    expect(recordOf({ timestamp: T0, labels: { instanceId: instance }, jsonPayload: created }).node).toBeUndefined();
  });

  it("reads the spec's pino-shaped upgrade", () => {
    const r = recordOf({
      level: 30, time: T0_MS, pid: 7, hostname: 'web-1', msg: 'upgrade',
      mcp: { session: 'S1', last_event_id: '5', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 },
    });
    expect(r).toMatchObject({ kind: 'upgrade', node: 'web-1', session: 'S1', lastEventId: '5', decision: 'resume', status: 200, replayed: 0 });
  });

  it('kind and ts may sit in the wrapper too', () => {
    expect(recordOf({ level: 'info', data: { kind: 'session.created', ts: T0, session: 'S1' } })).toMatchObject({ kind: 'session.created', tsMs: T0_MS });
  });

  it('the top level is looked at first: its value wins over the wrapper', () => {
    expect(recordOf({ ts: T0, kind: 'session.created', session: 'TOP', mcp: { session: 'INNER' } }).session).toBe('TOP');
  });

  it('a top-level alias wins over the canonical name in the wrapper', () => {
    expect(recordOf({ ts: T0, kind: 'session.created', session_id: 'TOP', data: { session: 'INNER' } }).session).toBe('TOP');
  });

  it('the wrapper fills what the top level lacks', () => {
    const r = recordOf({ ts: T0, kind: 'stream.opened', session: 'TOP', fields: { session: 'INNER', stream: 'g1', via: 'post' } });
    expect([r.session, r.stream, r.via]).toEqual(['TOP', 'g1', 'post']);
  });

  it('looks only one level down', () => {
    expect(rejectionOf({ ts: T0, kind: 'session.created', data: { extra: { session: 'S1' } } })).toMatch(/missing required field session/);
  });

  it('other nested objects are not wrappers', () => {
    expect(rejectionOf({ ts: T0, kind: 'session.created', payload: { session: 'S1' } })).toMatch(/missing required field session/);
  });
});

describe('dotted names', () => {
  it('mcp.session.id as one flat key (OpenTelemetry style)', () => {
    expect(recordOf({ ts: T0, kind: 'session.created', 'mcp.session.id': 'S1' }).session).toBe('S1');
  });

  it('mcp.session.id as the nested path', () => {
    expect(recordOf({ ts: T0, kind: 'session.created', mcp: { session: { id: 'S1' } } }).session).toBe('S1');
  });

  it('mcp.session.id flat inside an attributes wrapper (an OTLP log record)', () => {
    expect(recordOf({ timestamp: T0, attributes: { event: 'session.created', 'mcp.session.id': 'S1' } }).session).toBe('S1');
  });

  it('a top-level dotted alias, flat or nested, wins over the canonical name in the wrapper', () => {
    const inner = { attributes: { session: 'INNER' } };
    expect(recordOf({ ts: T0, kind: 'session.created', 'mcp.session.id': 'TOP', ...inner }).session).toBe('TOP');
    expect(recordOf({ ts: T0, kind: 'session.created', mcp: { session: { id: 'TOP' } }, data: { session: 'INNER' } }).session).toBe('TOP');
  });

  it('a flat key of a dotted name hides its nested path', () => {
    // The flat key holds no id: the name has no value there, and the wrapper's alias fills in.
    const r = recordOf({ ts: T0, kind: 'session.created', 'mcp.session.id': true, mcp: { session: { id: 'NESTED' }, session_id: 'W' } });
    expect(r.session).toBe('W');
  });
});

describe('alias types', () => {
  const ecs = { '@timestamp': T0, event: { kind: 'event', category: ['web'], action: 'request' }, host: { name: 'web-1', ip: ['10.0.0.1'] } };

  it('an ECS line with event and host objects is an ordinary log line, not a record', () => {
    expect(outcomeOf({ ...ecs, message: 'GET /health 200' })).toEqual({ type: 'ignored' });
  });

  it('an ECS event object does not hide a string kind alias', () => {
    expect(recordOf({ ...ecs, type: 'session.created', session: 'S1' }).kind).toBe('session.created');
  });

  // The object itself is no node (log-format.md); its name is, as Filebeat's host.name is (ECS loggers write it).
  it('an ECS host object is not a node, its name is; a string alias ranks first', () => {
    expect(recordOf({ ...ecs, kind: 'session.created', session: 'S1' }).node).toBe('web-1');
    expect(recordOf({ ...ecs, host: { ip: ['10.0.0.1'] }, kind: 'session.created', session: 'S1' }).node).toBeUndefined();
    expect(recordOf({ ...ecs, kind: 'session.created', session: 'S1', hostname: 'web-2' }).node).toBe('web-2');
  });

  it('a non-string msg (a structured message) is not a kind', () => {
    expect(outcomeOf({ ts: T0, msg: { text: 'upgrade' } })).toEqual({ type: 'ignored' });
  });
});
