import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('analyze: the gate', () => {
  it('exits 0 on a clean deployment and says so', async () => {
    const r = await cli('analyze', 'samples/clean.ndjson');
    expect(r.code).toBe(0);
    expect(r.out).toContain('no findings');
  });

  it('exits 1 when a finding is at or above --fail-on (default error), and quotes the evidence', async () => {
    const r = await cli('analyze', 'samples/writers.ndjson');
    expect(r.code).toBe(1);
    expect(r.out).toContain('dual-writer');
    expect(r.out).toMatch(/samples\/writers\.ndjson:13 {2}10:00:02\.000 upgrade resume 200 from 1007 U1→U2/);
    const raw = await cli('analyze', 'samples/writers.ndjson', '--raw');
    expect(raw.out).toMatch(/samples\/writers\.ndjson:13 +\{"ts"/);
  });

  it('--fail-on critical passes errors but not a critical finding; never always passes', async () => {
    expect((await cli('analyze', 'samples/stream-vs-session.ndjson', '--fail-on', 'critical')).code).toBe(0);
    expect((await cli('analyze', 'samples/writers.ndjson', '--fail-on', 'critical')).code).toBe(1);
    expect((await cli('analyze', 'samples/writers.ndjson', '--fail-on', 'never')).code).toBe(0);
  });

  it('--format json is the contract shape', async () => {
    const r = await cli('analyze', 'samples/writers.ndjson', '--format', 'json');
    const report = JSON.parse(r.out);
    expect(Object.keys(report)).toEqual(['version', 'findings', 'not_knowable', 'summary']);
    expect(Object.keys(report.summary).sort()).toEqual(['by_rule', 'ignored_lines', 'nodes', 'protocol_versions', 'records', 'rejected_lines', 'sessions']);
    expect(report.findings[0]).toMatchObject({ rule: expect.any(String), severity: expect.any(String), session: 'S-1001', evidence: expect.any(Array) });
  });

  it('--rule and --session filter the report and the gate', async () => {
    const only = JSON.parse((await cli('analyze', 'samples/writers.ndjson', '--format', 'json', '--rule', 'dual-writer')).out);
    expect(only.findings.map((f: { rule: string }) => f.rule)).toEqual(['dual-writer', 'dual-writer']);
    // A session the log has but with no finding passes; one it does not have is a typo (exit 2).
    expect((await cli('analyze', 'samples/clean.ndjson', '--session', 'c0ffee-01')).code).toBe(0);
    expect((await cli('analyze', 'samples/writers.ndjson', '--session', 'no-such-session')).code).toBe(2);
  });

  it('an unknown rule or format is a command-line error (exit 2)', async () => {
    const r = await cli('analyze', 'samples/clean.ndjson', '--rule', 'dual-writers');
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown rule "dual-writers"');
    expect((await cli('analyze', 'samples/clean.ndjson', '--format', 'xml')).code).toBe(2);
  });

  it('an unusable file exits 2 after the other files are analysed, naming file, line and why', async () => {
    const bad = join(dir, 'broken.ndjson');
    writeFileSync(bad, 'this is not json\n{"also": "no kind"}\n');
    const r = await cli('analyze', 'samples/writers.ndjson', bad);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${bad}: unusable: no record lines (line 1: invalid JSON`);
    expect(r.out).toContain('dual-writer');
  });

  it('a pretty-printed JSON array export is unusable, saying how to read it; --json-array reads its entries', async () => {
    const records = readFileSync('samples/writers.ndjson', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const exported = join(dir, 'export.json');
    writeFileSync(exported, JSON.stringify(records, null, 2));
    const refused = await cli('analyze', exported);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`${exported}: unusable: no record lines (line 1: the file is one JSON document`);
    expect(refused.err).toContain('pass --json-array');
    const read = await cli('analyze', exported, '--json-array', '--format', 'json');
    const plain = await cli('analyze', 'samples/writers.ndjson', '--format', 'json');
    const rules = (out: string) => (JSON.parse(out).findings as { rule: string; session: string }[]).map((f) => `${f.rule} ${f.session}`);
    expect(read.code).toBe(plain.code);
    expect(rules(read.out)).toEqual(rules(plain.out));
  });

  it('a path that does not exist exits 2 with its name', async () => {
    const r = await cli('analyze', join(dir, 'nope.ndjson'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('nope.ndjson: unusable: cannot read (ENOENT: no such file or folder)');
  });

  it('thresholds from resumescope.config.json change what fires; flags win over the file', async () => {
    const config = join(dir, 'rs.json');
    writeFileSync(config, JSON.stringify({ thresholds: { stormCount: 10 } }));
    const quiet = JSON.parse((await cli('analyze', 'samples/http-edge.ndjson', '--format', 'json', '--config', config)).out);
    expect(quiet.summary.by_rule['404-storm']).toBeUndefined();
    const loud = JSON.parse((await cli('analyze', 'samples/http-edge.ndjson', '--format', 'json', '--config', config, '--storm-count', '5')).out);
    expect(loud.summary.by_rule['404-storm']).toBe(1);
  });

  it('says on stderr what a config file changed, so rules it disabled or a gate it lowered never pass unsaid', async () => {
    const config = join(dir, 'rs.json');
    writeFileSync(config, JSON.stringify({ rules: { disable: ['dual-writer', 'silent-truncation'] }, failOn: 'never', thresholds: { stormWindowMs: '20s' } }));
    const r = await cli('analyze', 'samples/writers.ndjson', '--config', config);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`resumescope: settings from ${config}: failOn never; rules.disable dual-writer, silent-truncation; thresholds.stormWindowMs 20000\n`);
    // near miss: a run without a config file says nothing of settings
    expect((await cli('analyze', 'samples/writers.ndjson')).err).not.toContain('settings from');
  });

  it('a command says which settings of the config file it does not read: a watch never looks gated by failOn', async () => {
    const config = join(dir, 'rs.json');
    writeFileSync(config, JSON.stringify({ failOn: 'error', retention: { maxAgeMs: '2m' }, rules: { disable: ['dual-writer'] } }));
    const watch = await cli('watch', 'samples/writers.ndjson', '--config', config, '--idle-exit', '1s', '--format', 'ndjson');
    expect(watch.err).toContain(`settings from ${config}: rules.disable dual-writer; failOn error (analyze's gate: not read by watch); retention.maxAgeMs 120000 (whatif's retention: not read by watch)\n`);
    expect(watch.code).toBe(0);
    const whatif = await cli('whatif', 'samples/writers.ndjson', '--config', config);
    expect(whatif.err).toContain(`settings from ${config}: rules.disable dual-writer; retention.maxAgeMs 120000; failOn error (analyze's gate: not read by whatif)\n`);
    // near miss: analyze reads failOn, and says it as before
    const analyze = await cli('analyze', 'samples/writers.ndjson', '--config', config);
    expect(analyze.err).toContain(`settings from ${config}: failOn error; rules.disable dual-writer; retention.maxAgeMs 120000 (whatif's retention: not read by analyze)\n`);
  });

  it('a bad config file is exit 2 naming the key', async () => {
    const config = join(dir, 'rs.json');
    writeFileSync(config, JSON.stringify({ thresholds: { stromCount: 10 } }));
    const r = await cli('analyze', 'samples/clean.ndjson', '--config', config);
    expect(r.code).toBe(2);
    expect(r.err).toContain('stromCount');
  });

  it('a baseline suppresses known findings so the gate passes, and only those', async () => {
    const baseline = join(dir, 'known.json');
    const found = JSON.parse((await cli('analyze', 'samples/writers.ndjson', '--format', 'json')).out).findings.length;
    expect((await cli('analyze', 'samples/writers.ndjson', '--write-baseline', baseline)).code).toBe(1);
    expect(JSON.parse(readFileSync(baseline, 'utf8')).keys).toHaveLength(found);
    const r = await cli('analyze', 'samples/writers.ndjson', '--baseline', baseline);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`${found} known finding(s) suppressed`);
    expect((await cli('analyze', 'samples/writers.ndjson', 'samples/http-edge.ndjson', '--baseline', baseline)).code).toBe(1);
  });

  it('a baseline still suppresses an orphaned request once a line is added at the top of the log or the log is split in two', async () => {
    const baseline = join(dir, 'known.json');
    const lines = readFileSync('samples/stream-vs-session.ndjson', 'utf8').trimEnd().split('\n');
    expect((await cli('analyze', 'samples/stream-vs-session.ndjson', '--write-baseline', baseline)).err).toContain('wrote 3 finding(s)');
    expect(JSON.parse(readFileSync(baseline, 'utf8')).keys.filter((k: { rule: string }) => k.rule === 'orphaned-request')).toHaveLength(2);
    const prepended = join(dir, 'prepended.ndjson');
    writeFileSync(prepended, `{"msg":"app started","level":"info"}\n${lines.join('\n')}\n`);
    const [a, b] = [join(dir, 'a.ndjson'), join(dir, 'b.ndjson')];
    writeFileSync(a, `${lines.slice(0, 6).join('\n')}\n`);
    writeFileSync(b, `${lines.slice(6).join('\n')}\n`);
    for (const paths of [[prepended], [a, b]]) {
      const r = await cli('analyze', ...paths, '--baseline', baseline);
      expect(r.err).toContain('3 known finding(s) suppressed');
      expect(r.code).toBe(0);
    }
  });

  it('writes sarif, junit and markdown reports to a file with -o', async () => {
    const sarif = join(dir, 'r.sarif');
    await cli('analyze', 'samples/writers.ndjson', '--format', 'sarif', '-o', sarif);
    const doc = JSON.parse(readFileSync(sarif, 'utf8'));
    const found = JSON.parse((await cli('analyze', 'samples/writers.ndjson', '--format', 'json')).out).findings.length;
    expect(doc.version).toBe('2.1.0');
    expect(doc.runs[0].results.length).toBe(found);
    expect(doc.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('samples/writers.ndjson');
    const junit = (await cli('analyze', 'samples/writers.ndjson', '--format', 'junit')).out;
    expect(junit).toContain('<testsuite');
    const md = (await cli('analyze', 'samples/writers.ndjson', '--format', 'markdown')).out;
    expect(md).toContain('| `dual-writer` | error | 2 |');
  });

  it('caps SARIF only when --max-findings is given, saying on stderr what it left out; text keeps its own meaning of the flag', async () => {
    const found = JSON.parse((await cli('analyze', 'samples/writers.ndjson', '--format', 'json')).out).findings.length;
    expect(JSON.parse((await cli('analyze', 'samples/writers.ndjson', '--format', 'sarif')).out).runs[0].results).toHaveLength(found);
    const r = await cli('analyze', 'samples/writers.ndjson', '--format', 'sarif', '--max-findings', '2');
    expect(JSON.parse(r.out).runs[0].results).toHaveLength(2);
    expect(r.err).toContain(`resumescope: SARIF: ${found - 2} of ${found} findings left out by --max-findings 2`);
    expect(r.code).toBe(1);
    const plain = await cli('analyze', 'samples/writers.ndjson', '--format', 'sarif', '--max-findings', String(found));
    expect(plain.err).not.toContain('left out');
  });

  it('writes the JSON report with -o byte for byte as on stdout, replacing what the file held', async () => {
    const file = join(dir, 'r.json');
    writeFileSync(file, 'x'.repeat(200_000));
    await cli('analyze', 'samples/', '--format', 'json', '--fail-on', 'never', '-o', file);
    const stdout = (await cli('analyze', 'samples/', '--format', 'json', '--fail-on', 'never')).out;
    expect(readFileSync(file, 'utf8')).toBe(stdout);
    expect(JSON.parse(stdout).findings.length).toBeGreaterThan(10);
  });

  it('--explain adds a plain-English account per finding', async () => {
    const r = await cli('analyze', 'samples/stream-vs-session.ndjson', '--explain', '--rule', 'pending-not-reemitted');
    expect(r.out.toLowerCase()).toContain('should');
  });
});

describe('analyze: a folder split per node, and rotated', () => {
  /** An export as a cluster's log tooling writes it: one subfolder per node, each node's log rotated. */
  function export_(): string {
    const line = (ts: string, kind: string, node: string, extra = '') =>
      `{"ts":"2026-11-09T10:00:${ts}Z","kind":"${kind}","session":"S-${node}","node":"${node}"${extra}}\n`;
    mkdirSync(join(dir, 'node-a'));
    mkdirSync(join(dir, 'node-b'));
    writeFileSync(join(dir, 'node-a', 'mcp.log.1'), line('00.000', 'session.created', 'a'));
    writeFileSync(join(dir, 'node-a', 'mcp.log'), line('05.000', 'session.terminated', 'a', ',"reason":"client_delete"'));
    writeFileSync(join(dir, 'node-b', 'mcp.log'), line('01.000', 'session.created', 'b'));
    return dir;
  }

  it('says which subfolders it did not read, and --recursive reads them, rotated generations included', async () => {
    const root = export_();
    writeFileSync(join(root, 'proxy.ndjson'), '{"ts":"2026-11-09T10:00:02.000Z","kind":"session.created","session":"S-p","node":"p"}\n');
    const top = await cli('analyze', root, '--format', 'json', '--fail-on', 'never');
    expect(top.code).toBe(0);
    expect(JSON.parse(top.out).summary.records).toBe(1);
    expect(top.err).toContain(`resumescope: ${root}: 2 subfolders with log files not read (node-a, node-b): name them too, or pass --recursive`);
    const all = await cli('analyze', root, '--recursive', '--format', 'json', '--fail-on', 'never');
    expect(JSON.parse(all.out).summary.records).toBe(4);
    expect(all.err).not.toContain('not read');
  });

  it('says which files that look like logs it did not read for their names, and leaves other files unsaid', async () => {
    const root = export_();
    const record = '{"ts":"2026-11-09T10:00:02.000Z","kind":"session.created","session":"S-p","node":"p"}\n';
    writeFileSync(join(root, 'proxy.ndjson'), record);
    writeFileSync(join(root, 'pod.txt'), record); // kubectl logs > pod.txt
    writeFileSync(join(root, 'mcp.out'), '2026-11-09T10:00:03.000Z INFO {"kind":"session.created","session":"S-q"}\n');
    // near misses: files that are no logs, and a CSV download (read with --csv, which the README says)
    writeFileSync(join(root, 'README.md'), '# the export of 9 November\n');
    writeFileSync(join(root, 'run.sh'), '#!/bin/sh\n');
    writeFileSync(join(root, 'insights.csv'), '@timestamp,@message\n');
    const r = await cli('analyze', root, '--format', 'json', '--fail-on', 'never');
    expect(JSON.parse(r.out).summary.records).toBe(1);
    expect(r.err).toContain(
      `resumescope: ${root}: 2 files that look like logs were not read (mcp.out, pod.txt): a folder's *.ndjson, *.jsonl, *.log and *.json files are; name them to read them`,
    );
    expect(r.err).not.toMatch(/README|run\.sh|insights/);
  });

  it('refuses a folder whose logs all lie in subfolders, naming them, and exits as a usage error', async () => {
    const r = await cli('analyze', export_());
    expect(r.code).toBe(2);
    expect(r.err).toContain('its subfolders node-a, node-b do: name them, or pass --recursive');
    expect((await cli('analyze', '-r', dir, '--fail-on', 'never')).code).toBe(0);
  });
});

describe('analyze: the text report a person reads', () => {
  it('names files relative to the current folder, while JSON keeps them as given', async () => {
    const abs = join(process.cwd(), 'samples/writers.ndjson');
    const text = await cli('analyze', abs, '--fail-on', 'never');
    expect(text.out).toMatch(/^ {8}samples\/writers\.ndjson:13 {2}/m);
    expect(text.out).not.toContain(abs);
    const json = JSON.parse((await cli('analyze', abs, '--format', 'json', '--fail-on', 'never')).out);
    expect(json.findings[0].evidence[0].file).toBe(abs);
  });

  it('--no-not-knowable leaves one line that counts the section', async () => {
    const shown = await cli('analyze', 'samples/proxy', '--fail-on', 'never');
    expect(shown.out).toContain('NOT KNOWABLE in 4 sessions');
    expect(shown.out).toMatch(/^ {4}engine-divergence: /m);
    const hidden = await cli('analyze', 'samples/proxy', '--fail-on', 'never', '--no-not-knowable');
    expect(hidden.out).not.toMatch(/engine-divergence:/);
    expect(hidden.out).toMatch(/^NOT KNOWABLE: \d+ rules could not be judged in 4 sessions \(hidden by --no-not-knowable\)$/m);
  });

  it('paints only when FORCE_COLOR asks for it on a pipe, and never into -o FILE', async () => {
    const saved = { FORCE_COLOR: process.env.FORCE_COLOR, NO_COLOR: process.env.NO_COLOR };
    try {
      delete process.env.NO_COLOR;
      delete process.env.FORCE_COLOR;
      expect((await cli('analyze', 'samples/writers.ndjson')).out).not.toContain('\u001b[');
      process.env.FORCE_COLOR = '1';
      expect((await cli('analyze', 'samples/writers.ndjson')).out).toContain('\u001b[1;31mERROR\u001b[0m');
      const file = join(dir, 'report.txt');
      await cli('analyze', 'samples/writers.ndjson', '-o', file);
      expect(readFileSync(file, 'utf8')).not.toContain('\u001b[');
      process.env.FORCE_COLOR = '0';
      expect((await cli('analyze', 'samples/writers.ndjson')).out).not.toContain('\u001b[');
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  });
});
