import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLEAN_SHAPES, generate, SHAPES } from '../../bench/generate.js';
import { analyzeFiles } from '../../src/api.js';

// The bench is only worth its numbers if what it generates is what the
// analyzer accepts and judges as the shape intends: every line read (none
// rejected), clean shapes clean, faulty shapes faulty. Behaviour, not timings.

const dir = mkdtempSync(join(tmpdir(), 'resumescope-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LINES = 3000;

async function run(shape: string, seed = 1, lines = LINES) {
  const file = join(dir, `${shape}-${seed}-${lines}.ndjson`);
  const written = await generate(file, lines, { shape, seed });
  return { file, written, report: await analyzeFiles([file]) };
}

// The rule families the faults shape injects, as this tree implements them.
// (It also injects a 2026-07-28 session for session-in-stateless-era, which
// this tree does not detect yet.)
const INJECTED = [
  'silent-truncation', 'phantom-event-id', 'resume-after-end', 'replay-on-attach', 'pending-not-reemitted', 'dual-writer',
  'cross-principal-replay', '404-storm', 'duplicate-tool-call',
];

describe('bench generator', () => {
  it.each(Object.keys(SHAPES).filter((s) => s !== 'fuzz'))('%s: every line is read, none rejected', async (shape) => {
    const { written, report } = await run(shape);
    expect(written).toBe(LINES);
    expect(report.summary.rejected_lines).toBe(0);
    expect(report.summary.records + report.summary.ignored_lines).toBe(LINES);
    // a soak test's log holds a few sessions, each thousands of records long (soak-one: one)
    const few = shape.startsWith('soak') || shape === 'polling' || shape === 'hostile';
    // stateless: 2026-07-28 requests, no session at all
    if (shape === 'stateless') expect(report.summary.sessions).toBe(0);
    else expect(report.summary.sessions).toBeGreaterThan(['soak-one', 'lifecycle', 'rotated', 'unclosed', 'one-id'].includes(shape) ? 0 : few ? 1 : 10);
  });

  it.each(CLEAN_SHAPES)('%s: a clean shape has no finding', async (shape) => {
    expect((await run(shape)).report.findings).toEqual([]);
  });

  it('folder: files numbered apart hold distinct sessions with one principal, whose same calls are the only findings', async () => {
    const files = [0, 1, 2].map((i) => join(dir, `folder-${i}.ndjson`));
    await Promise.all(files.map((f, i) => generate(f, 600, { shape: 'folder', seed: 1 + i, firstSession: i * 1000, startMs: Date.parse('2026-11-09T10:00:00.000Z') + i * 60_000 })));
    const one = await analyzeFiles([files[0]!]);
    const all = await analyzeFiles(files);
    expect(Object.keys(all.summary.by_rule).filter((r) => r !== 'duplicate-tool-call')).toEqual([]);
    expect(all.summary.sessions).toBeGreaterThan(2 * one.summary.sessions);
    expect(new Set(readFileSync(files[1]!, 'utf8').match(/tok:[\w]+/g))).toEqual(new Set(['tok:shared']));
  });

  it('rotated: soak-one without its creation, clean, and the engine cross-check said to be out of reach', async () => {
    const { file, report } = await run('rotated', 1, 6000);
    expect(report.summary.sessions).toBe(1);
    expect(readFileSync(file, 'utf8')).not.toContain('session.created');
    expect((readFileSync(file, 'utf8').match(/"decision":"resume"/g) ?? []).length).toBeGreaterThan(300);
    expect(report.findings).toEqual([]);
    expect(report.not_knowable.find((n) => n.rule === 'engine-divergence')?.reason).toContain('the log starts after sess-0 was created');
  });

  it('unclosed: soak-one on a server that logs no stream.closed, every reconnect a second writer', async () => {
    const { file, report } = await run('unclosed', 1, 6000);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('stream.closed');
    const reconnects = (text.match(/"decision":"(resume|attach)"/g) ?? []).length;
    expect(reconnects).toBeGreaterThan(400);
    expect(report.summary.sessions).toBe(1);
    // each accepted reconnect took over from a stream the log never ended
    expect(report.summary.by_rule).toEqual({ 'dual-writer': reconnects });
  });

  it('soak-one: the whole log is one session, resumed and reattached, and clean', async () => {
    const { file, report } = await run('soak-one', 1, 6000);
    expect(report.summary.sessions).toBe(1);
    const text = readFileSync(file, 'utf8');
    const resumes = text.match(/"decision":"resume"/g)?.length ?? 0;
    const attaches = text.match(/"decision":"attach"/g)?.length ?? 0;
    expect(attaches).toBeGreaterThan(20);
    expect(resumes).toBeGreaterThan(8 * attaches);
    expect(report.findings).toEqual([]);
  });

  it('lifecycle: the record kinds no other shape logs, each round of one long session, and clean', async () => {
    const { file, report } = await run('lifecycle', 1, 6000);
    const text = readFileSync(file, 'utf8');
    const count = (kind: string) => text.split(`"kind":"${kind}"`).length - 1;
    const rounds = count('upgrade');
    // one a round (the log may end between a round's trim and its reconnect)
    expect(count('buffer.trimmed') - rounds).toBeGreaterThanOrEqual(0);
    expect(count('buffer.trimmed') - rounds).toBeLessThanOrEqual(report.summary.sessions);
    expect(text).toMatch(/"kind":"buffer.trimmed","node":"[^"]+","session":"[^"]+","stream"/);
    expect(text).toMatch(/"kind":"buffer.trimmed","node":"[^"]+","session":"[^"]+","oldest_retained"/);
    for (const kind of ['request.cancelled', 'request.timed_out', 'request.reissued', 'stream.fenced', 'session.state_changed']) {
      expect(count(kind), kind).toBeGreaterThan(rounds / 12);
    }
    expect(report.summary.sessions).toBe(1);
    expect(report.findings).toEqual([]);
  });

  it('faults: each injected rule family fires', async () => {
    // Sessions interleave: a short log holds mostly their beginnings, so these take more lines.
    const { report } = await run('faults', 1, 20_000);
    // 2% of a log this size cannot reach every family: the bad server (every reconnect faulty) does.
    const bad = await run('bad-server', 1, 20_000);
    for (const rule of INJECTED) expect(bad.report.summary.by_rule, rule).toHaveProperty(rule);
    expect(report.findings.length).toBeGreaterThan(0);
    expect(report.findings.length).toBeLessThan(bad.report.findings.length);
  }, 90_000);

  it('storms: 404 storms and retried calls are found', async () => {
    const { by_rule } = (await run('storms', 1, 20_000)).report.summary;
    expect(by_rule['404-storm']).toBeGreaterThan(0);
    expect(by_rule['duplicate-tool-call']).toBeGreaterThan(0);
  }, 60_000);

  it('hostile: long sessions of six kinds, the refused one orphaning its waiting requests, the others finding nothing', async () => {
    const { report } = await run('hostile', 1, 30_000);
    const { summary } = report;
    // the client seen only by the proxy, the one reusing rpc id 1, the one naming no principal, the shared store,
    // the refused one, the cursor that never moves
    expect(summary.sessions).toBeGreaterThanOrEqual(6);
    expect(summary.records / summary.sessions).toBeGreaterThan(1000);
    expect(Object.keys(summary.nodes).sort()).toEqual(['node-a', 'node-b', 'proxy-1']);
    // other arguments under one rpc id are other calls; a resumption on the other node continues its events
    expect(new Set(report.findings.map((f) => f.rule))).toEqual(new Set(['orphaned-request']));
    const refused = report.findings.map((f) => f.session);
    expect(new Set(refused).size).toBeGreaterThanOrEqual(1);
    expect(refused.length % 50).toBe(0); // every waiting request of each refused session
    // what a proxy's line cannot show is said so, per resumption
    expect(report.not_knowable.filter((n) => n.rule === 'silent-truncation').length).toBeGreaterThan(100);
  }, 60_000);

  it('soak and long-sessions: sessions thousands of records long, the long ones faulty and sending ids again on every stream', async () => {
    const soak = (await run('soak', 1, 20_000)).report.summary;
    expect(soak.records / soak.sessions).toBeGreaterThan(2000);
    const long = await run('long-sessions', 1, 20_000);
    const { summary } = long.report;
    expect(summary.records / summary.sessions).toBeGreaterThan(400);
    expect(summary.records / summary.sessions).toBeLessThan(soak.records / soak.sessions);
    expect(summary.by_rule['event-id-regression']).toBeGreaterThan(0); // a quarter count ids per stream
    expect(Object.keys(summary.by_rule).length).toBeGreaterThan(5); // 2% faulty rounds, of every family
    expect(Object.keys(summary.nodes).sort()).toEqual(['node-a', 'node-b', 'node-c', 'node-d', 'proxy-1']);
  }, 60_000);

  it('polling: long 2025-11-25 sessions whose only findings are the 2% of stored responses never fetched', async () => {
    const { file, report } = await run('polling', 1, 20_000);
    const { summary } = report;
    expect(summary.records / summary.sessions).toBeGreaterThan(2000);
    expect(Object.keys(summary.protocol_versions)).toEqual(['2025-11-25']);
    const stored = readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('"rpc_kind":"response"') && l.includes('"attached":false'));
    expect(stored.length).toBeGreaterThan(500);
    // a fetch logged both ways: as the upgrade's first_replayed, and as an event.replayed line of its own
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.filter((l) => l.includes('"first_replayed"')).length).toBeGreaterThan(100);
    expect(lines.filter((l) => l.includes('"kind":"event.replayed"')).length).toBeGreaterThan(100);
    expect(Object.keys(summary.by_rule)).toEqual(['stranded-response']);
    expect(summary.by_rule['stranded-response']).toBeGreaterThan(0);
    expect(summary.by_rule['stranded-response']).toBeLessThan(stored.length * 0.05);
  }, 60_000);

  it('soak-attach: every reconnect a session resumption (an attach), none a stream resumption', async () => {
    const { file } = await run('soak-attach', 1, 20_000);
    const upgrades = readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('"kind":"upgrade"'));
    expect(upgrades.length).toBeGreaterThan(500);
    expect(upgrades.every((l) => l.includes('"decision":"attach"') && l.includes('"last_event_id":null'))).toBe(true);
  }, 60_000);

  it('id-pool: the production mix on 20 session ids, each created again and again', async () => {
    const { summary } = (await run('id-pool', 1, 20_000)).report;
    expect(summary.sessions).toBe(20);
    expect(summary.by_rule['session-id-reuse']).toBeGreaterThan(0);
  }, 60_000);

  it('one-id: the production mix on one session id, created again for every session', async () => {
    const { file, report } = await run('one-id', 1, 20_000);
    const created = readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('session.created')).length;
    expect(report.summary.sessions).toBe(1);
    expect(report.summary.by_rule['session-id-reuse']).toBeGreaterThan(created / 2);
  }, 60_000);

  it('sdk-ids: the production mix with SDK-minted ids, judged exactly as the production mix is', async () => {
    const [sdk, production] = [await run('sdk-ids', 1, 20_000), await run('production', 1, 20_000)];
    const text = readFileSync(sdk.file, 'utf8');
    expect(text).not.toMatch(/"sess-\d+"|"g\d+"|"event_id":\d/);
    expect(text).toMatch(/"event_id":"[0-9a-f-]{36}_\d{13}_[0-9a-f]{8}"/);
    expect(sdk.report.summary.sessions).toBe(production.report.summary.sessions);
    expect(sdk.report.summary.by_rule).toEqual(production.report.summary.by_rule);
    expect(Object.keys(sdk.report.summary.by_rule).length).toBeGreaterThan(5);
  }, 60_000);

  it('fuzz: the production mix mutated; every line accounted for, the junk rejected with its reason, nothing thrown', async () => {
    const { file, written, report } = await run('fuzz', 1, 20_000);
    expect(written).toBe(20_000);
    const { records, rejected_lines, ignored_lines } = report.summary;
    expect(rejected_lines).toBeGreaterThan(50);
    // A proxy line may yield several records; no line is lost.
    expect(records + rejected_lines + ignored_lines).toBeGreaterThanOrEqual(20_000);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"kind":"not.a.kind"');
    expect(text).toContain('oom-killer');
    // The mutations make findings of many rules, as a fuzzer's log would.
    expect(Object.keys(report.summary.by_rule).length).toBeGreaterThan(10);
    const again = join(dir, 'fuzz-again.ndjson');
    await generate(again, 20_000, { shape: 'fuzz', seed: 1 });
    expect(readFileSync(again, 'utf8')).toBe(text);
  }, 60_000);

  it('multinode: four nodes, one of them with seq', async () => {
    const { file, report } = await run('multinode');
    expect(Object.keys(report.summary.nodes).sort()).toEqual(['node-a', 'node-b', 'node-c', 'node-d']);
    expect(readFileSync(file, 'utf8')).toMatch(/"seq":\d+/);
  });

  it('proxy: proxy lines are read as http records beside the server records', async () => {
    const { report } = await run('proxy');
    expect(report.summary.nodes).toHaveProperty('proxy-1');
  });

  it('same seed, same bytes; another seed, another log', async () => {
    const a = await run('production', 7);
    const b = readFileSync(a.file, 'utf8');
    await generate(join(dir, 'again.ndjson'), LINES, { shape: 'production', seed: 7 });
    expect(readFileSync(join(dir, 'again.ndjson'), 'utf8')).toBe(b);
    await generate(join(dir, 'other.ndjson'), LINES, { shape: 'production', seed: 8 });
    expect(readFileSync(join(dir, 'other.ndjson'), 'utf8')).not.toBe(b);
  });
});
