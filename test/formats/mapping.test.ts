import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NormalizedRecord } from '../../src/model/record.js';
import { INPUT_FORMATS } from '../../src/normalize/formats/index.js';
import { loadMapping, loadMappingFile, MappingError } from '../../src/normalize/formats/mapping.js';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';

// A user's load balancer that is none of the built-in formats. The CLI puts
// the mapping in front of the built-in adapters (`--mapping FILE`).

const MYLB = {
  name: 'mylb',
  detect: { has: ['when', 'req.verb'] },
  kind: 'http',
  fields: {
    ts: 'when',
    method: 'req.verb',
    path: 'req.target',
    status: 'code',
    'req_headers.mcp-session-id': 'sid',
    'req_headers.last-event-id': 'req.lei',
    'resp_headers.mcp-session-id': 'minted',
    'resp_headers.content-type': 'ctype',
    duration_ms: { from: 'took_s', scale: 1000 },
    node: { value: 'lb-1' },
    principal: { from: 'user', default: 'anonymous' },
  },
};

function normalize(format: ReturnType<typeof loadMapping>, lines: unknown[]) {
  const n = new LineNormalizer(undefined, [format, ...INPUT_FORMATS]);
  return { outcomes: lines.map((l) => n.normalize(JSON.stringify(l))), format: () => n.formatName };
}

const records = (o: ReturnType<LineNormalizer['normalize']>): NormalizedRecord[] => (o.type === 'records' ? o.records : []);

describe('a mapping file as an input format', () => {
  const mylb = loadMapping(MYLB);
  const S = 'S-77';
  const line = (extra: Record<string, unknown>) => ({ when: '2026-11-09T10:00:00.000Z', req: { verb: 'GET', target: '/mcp' }, code: '200', sid: S, ...extra });

  it('maps a resumption accepted, with scale, constant and default', () => {
    const { outcomes, format } = normalize(mylb, [line({ req: { verb: 'GET', target: '/mcp', lei: 41 }, ctype: 'text/event-stream', took_s: '1.5' })]);
    expect(format()).toBe('mylb');
    const recs = records(outcomes[0]!);
    expect(recs.map((r) => r.kind)).toEqual(['http', 'upgrade']);
    expect(recs[0]).toMatchObject({ httpMethod: 'GET', path: '/mcp', status: 200, durationMs: 1500, node: 'lb-1', principal: 'anonymous', session: S });
    expect(recs[1]).toMatchObject({ decision: 'resume', session: S, lastEventId: '41', status: 200 });
  });

  it('maps an initialize minting a session and a 404 rejection', () => {
    const { outcomes } = normalize(mylb, [
      line({ sid: '-', req: { verb: 'POST', target: '/mcp' }, minted: S, user: 'alice' }),
      line({ req: { verb: 'GET', target: '/mcp', lei: '41' }, code: 404 }),
    ]);
    expect(records(outcomes[0]!).filter((r) => r.kind === 'session.created').map((r) => [r.session, r.principal])).toEqual([[S, 'alice']]);
    expect(records(outcomes[1]!).filter((r) => r.kind === 'upgrade').map((r) => [r.decision, r.status])).toEqual([['reject', 404]]);
  });

  it('leaves lines it does not detect to the other formats, and counts the rest as ignored', () => {
    const { outcomes, format } = normalize(mylb, [{ msg: 'lb started' }, line({}), { when: '2026-11-09T10:00:01Z', note: 'no verb' }]);
    expect(outcomes.map((o) => o.type)).toEqual(['ignored', 'records', 'ignored']);
    expect(format()).toBe('mylb');
  });

  it('reads digit strings as numbers, "true"/"false" as booleans and a comma list as ids', () => {
    const fmt = loadMapping({
      name: 'upgrades',
      detect: { has: ['decision'] },
      kind: 'upgrade',
      fields: { ts: 't', session: 'sid', decision: 'decision', status: 'code', replayed: 'n', replayed_ids: 'ids', reset_signalled: 'reset' },
    });
    const { outcomes } = normalize(fmt, [{ t: '2026-11-09T10:00:00Z', sid: 'S1', decision: 'resume', code: '200', n: '2', ids: '5, 6', reset: 'false' }]);
    expect(records(outcomes[0]!)).toMatchObject([{ kind: 'upgrade', status: 200, replayed: 2, replayedIds: ['5', '6'], resetSignalled: false }]);
  });

  it('reports a bad value through the spec normalizer, naming the mapping', () => {
    const { outcomes } = normalize(mylb, [line({ when: 'at dawn' })]);
    expect(outcomes[0]).toEqual({ type: 'rejected', reason: expect.stringMatching(/^mylb: http: unparsable time "at dawn"/) });
  });

  it('maps the kind from the line, and honours detect.equals and a custom absent list', () => {
    const fmt = loadMapping({
      name: 'applog',
      detect: { equals: { 'source': 'mcp-audit' } },
      fields: { ts: 'at', kind: 'what', session: 'ctx.sid', stream: 'ctx.hops.1', via: { value: 'get' } },
      absent: ['n/a'],
    });
    const { outcomes } = normalize(fmt, [
      { source: 'mcp-audit', at: 1794218400000, what: 'stream.opened', ctx: { sid: 'S1', hops: ['edge', 'g1'] } },
      { source: 'mcp-audit', at: 1794218400001, what: 'stream.opened', ctx: { sid: 'n/a', hops: ['edge', 'g2'] } },
      { source: 'mcp-audit', at: 1794218400002, what: 'teleported', ctx: { sid: 'S1', hops: ['edge', 'g1'] } },
      { source: 'other', at: 1794218400003, what: 'stream.opened', ctx: { sid: 'S1', hops: ['edge', 'g1'] } },
    ]);
    expect(records(outcomes[0]!)).toMatchObject([{ kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }]);
    // 'n/a' is absent: no session, and no version, so the store reads it only on a stream a stateless request named before
    expect(records(outcomes[1]!)[0]?.session).toBeUndefined();
    expect(outcomes[1]).toMatchObject({ inheriting: { specs: 1, prefix: 'applog', records: [{ index: 0, spec: 1 }] } });
    expect(outcomes[2]).toEqual({ type: 'rejected', reason: 'applog: unknown kind "teleported"' });
    expect(outcomes[3]).toEqual({ type: 'ignored' });
  });
});

describe('mapping validation', () => {
  const withChange = (change: Record<string, unknown>) => ({ ...MYLB, ...change });

  it.each<[string, unknown, RegExp]>([
    ['not an object', [MYLB], /^mapping: expected a JSON object/],
    ['text that is not JSON', '{"name": ', /^mapping: not valid JSON/],
    ['a typo at the top', withChange({ feilds: {} }), /^mapping "feilds": unknown key/],
    ['no name', withChange({ name: undefined }), /^mapping "name": expected a name/],
    ['a built-in name', withChange({ name: 'nginx' }), /^mapping "name": "nginx" is a built-in input format/],
    ['no detect', withChange({ detect: undefined }), /^mapping "detect": expected/],
    ['an empty detect', withChange({ detect: { has: [] } }), /^mapping "detect": give at least one path/],
    ['detect.has not paths', withChange({ detect: { has: ['a', 3] } }), /^mapping "detect.has": expected a list of source paths/],
    ['detect.equals to an object', withChange({ detect: { equals: { a: { b: 1 } } } }), /^mapping "detect.equals.a": expected a string/],
    ['an unknown target', withChange({ fields: { ...MYLB.fields, sesion: 'sid' } }), /^mapping "fields.sesion": not a spec field/],
    ['a source that is a number', withChange({ fields: { ...MYLB.fields, status: 42 } }), /^mapping "fields.status": expected a source path/],
    ['a scale of 0', withChange({ fields: { ...MYLB.fields, duration_ms: { from: 't', scale: 0 } } }), /^mapping "fields.duration_ms.scale": expected a non-zero number/],
    ['a typo in a source', withChange({ fields: { ...MYLB.fields, bytes: { form: 'b' } } }), /^mapping "fields.bytes.form": unknown key/],
    ['no ts', withChange({ fields: { method: 'm' } }), /^mapping "fields.ts": required/],
    ['an unknown kind', withChange({ kind: 'request' }), /^mapping "kind": expected one of session.created/],
    ['no kind at all', withChange({ kind: undefined }), /^mapping "kind": required/],
    ['absent not a list', withChange({ absent: '-' }), /^mapping "absent": expected a list/],
  ])('rejects %s, naming the key', (_what, json, message) => {
    expect(() => loadMapping(json)).toThrow(MappingError);
    expect(() => loadMapping(json)).toThrow(message);
  });

  it('accepts the mapping as JSON text', () => {
    expect(loadMapping(JSON.stringify(MYLB)).name).toBe('mylb');
  });
});

describe('loadMappingFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'resumescope-mapping-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a mapping file', () => {
    const path = join(dir, 'mylb.json');
    writeFileSync(path, JSON.stringify(MYLB));
    expect(loadMappingFile(path).name).toBe('mylb');
  });

  it('names the file in its errors', () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify({ ...MYLB, kind: 'nope' }));
    expect(() => loadMappingFile(path)).toThrow(`${path}: mapping "kind"`);
    expect(() => loadMappingFile(join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read mapping file \(ENOENT\)/);
  });
});
