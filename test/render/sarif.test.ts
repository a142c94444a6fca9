import { describe, expect, it } from 'vitest';
import { findingFingerprint } from '../../src/findings/identity.js';
import { RULE_IDS, ruleOf } from '../../src/detect/rules/index.js';
import { renderSarif } from '../../src/render/sarif.js';
import { FINDINGS, lineText, makeReport } from './fixture.js';

const sarif = () => JSON.parse(renderSarif(makeReport(), { toolVersion: '1.2.3', lineText, workingDirectory: '/work/repo' }));

describe('renderSarif', () => {
  it('is one SARIF 2.1.0 run by resumescope at the given version', () => {
    const log = sarif();
    expect(log.version).toBe('2.1.0');
    expect(log.$schema).toMatch(/sarif-2\.1\.0/);
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0].tool.driver.name).toBe('resumescope');
    expect(log.runs[0].tool.driver.version).toBe('1.2.3');
  });

  it('describes every rule of the catalogue with its summary, docs anchor and default level', () => {
    const rules = sarif().runs[0].tool.driver.rules;
    expect(rules.map((r: { id: string }) => r.id)).toEqual([...RULE_IDS]);
    for (const r of rules) {
      expect(r.shortDescription.text).toBe(ruleOf(r.id).summary);
      // SARIF1002: absolute; the docs as shipped in the npm package of this version.
      expect(r.helpUri).toBe(`https://unpkg.com/resumescope@1.2.3/docs/rules.md#${r.id}`);
      expect(['error', 'warning', 'note']).toContain(r.defaultConfiguration.level);
    }
    expect(rules.find((r: { id: string }) => r.id === 'cross-principal-replay').defaultConfiguration.level).toBe('error');
    expect(rules.find((r: { id: string }) => r.id === 'engine-divergence').defaultConfiguration.level).toBe('note');
  });

  it('gives each finding one result whose ruleId and ruleIndex point at its descriptor', () => {
    const run = sarif().runs[0];
    expect(run.results).toHaveLength(FINDINGS.length);
    for (const r of run.results) {
      expect(RULE_IDS).toContain(r.ruleId);
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    }
  });

  it('maps severities to levels and keeps the original severity', () => {
    const results = sarif().runs[0].results;
    const byRule = (id: string) => results.find((r: { ruleId: string }) => r.ruleId === id);
    expect(byRule('cross-principal-replay')).toMatchObject({ level: 'error', properties: { severity: 'critical' } });
    expect(byRule('dual-writer')).toMatchObject({ level: 'error', properties: { severity: 'error' } });
    expect(byRule('404-storm')).toMatchObject({ level: 'warning', properties: { severity: 'warning' } });
    expect(byRule('engine-divergence')).toMatchObject({ level: 'note', properties: { severity: 'info' } });
  });

  it('quotes a line of megabytes (a message body, up to the reader\'s 16 MiB) by its first 4 KiB, once per citation', () => {
    const long = `{"kind":"event.sent","body":"${'x'.repeat(200_000)}"}`;
    const results = JSON.parse(renderSarif(makeReport(), { toolVersion: '1.2.3', lineText: () => long, workingDirectory: '/work/repo' })).runs[0].results;
    const snippets = results.flatMap((r: { locations?: { physicalLocation: { region: { snippet?: { text: string } } } }[] }) =>
      (r.locations ?? []).map((l) => l.physicalLocation.region.snippet!.text));
    expect(snippets.length).toBeGreaterThan(0);
    for (const text of snippets) {
      expect(text).toHaveLength(4096);
      expect(long.startsWith(text.slice(0, -1))).toBe(true);
    }
  });

  it('puts the first evidence line as the location and the rest as related locations, with line numbers', () => {
    const results = sarif().runs[0].results;
    const truncation = results.find((r: { ruleId: string }) => r.ruleId === 'silent-truncation');
    expect(truncation.locations).toHaveLength(1);
    expect(truncation.locations[0].physicalLocation.artifactLocation).toEqual({ uri: 'server-a.ndjson', uriBaseId: '%SRCROOT%' });
    expect(sarif().runs[0].originalUriBaseIds).toHaveProperty('%SRCROOT%');
    expect(sarif().runs[0].tool.driver.informationUri).toMatch(/^https:\/\//);
    expect(truncation.locations[0].physicalLocation.region.startLine).toBe(5);
    expect(truncation.locations[0].physicalLocation.region.snippet.text).toContain('"kind":"buffer.trimmed"');
    expect(truncation.relatedLocations.map((l: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }) => [
      l.physicalLocation.artifactLocation.uri,
      l.physicalLocation.region.startLine,
    ])).toEqual([['server-b.ndjson', 2]]);
    const storm = results.find((r: { ruleId: string }) => r.ruleId === '404-storm');
    expect(storm.relatedLocations).toHaveLength(4);
    for (const r of results) {
      for (const l of [...r.locations, ...(r.relatedLocations ?? [])]) {
        expect(Number.isInteger(l.physicalLocation.region.startLine)).toBe(true);
        expect(l.physicalLocation.region.startLine).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('fingerprints each result with the baseline key, so code scanning tracks it across runs', () => {
    const results = sarif().runs[0].results;
    const keys = results.map((r: { partialFingerprints: Record<string, string> }) => Object.values(r.partialFingerprints)[0]);
    expect(new Set(keys)).toEqual(new Set(FINDINGS.map(findingFingerprint)));
  });

  it('reports not-knowable rules as notifications, not as results', () => {
    // Beside them, the fixture's rejected lines are a warning of their own (test/render/rejected-lines.test.ts).
    const notes = sarif().runs[0].invocations[0].toolExecutionNotifications.filter((n: { level: string }) => n.level === 'note');
    expect(notes).toHaveLength(3);
    expect(notes.map((n: { associatedRule: { id: string } }) => n.associatedRule.id).sort()).toEqual([
      'orphaned-request',
      'orphaned-request',
      'pending-not-reemitted',
    ]);
    expect(notes[0].message.text).toContain('S4');
  });
});

describe('SARIF artifact URIs', () => {
  it('an absolute log path becomes a file:/// URI with no uriBaseId (SARIF1004)', async () => {
    const { toSarif } = await import('../../src/render/sarif.js');
    const report = { version: 2, findings: [{ rule: 'dual-writer', severity: 'error', session: 'S', at: '2025-01-01T00:00:00.000Z', message: 'm', evidence: [{ file: '/var/log/a b.ndjson', line: 3 }] }], not_knowable: [], summary: {} };
    const loc = toSarif(report as never, { toolVersion: '1.2.3', workingDirectory: '/work/repo' }).runs[0]!.results[0]!.locations![0]!.physicalLocation.artifactLocation;
    expect(loc).toEqual({ uri: 'file:///var/log/a%20b.ndjson' });
  });
});

describe('SARIF artifact URIs against the working directory', () => {
  const at = (file: string) => ({ version: 2, findings: [{ rule: 'dual-writer', severity: 'error', session: 'S', at: '2025-01-01T00:00:00.000Z', message: 'm', evidence: [{ file, line: 3 }] }], not_knowable: [], summary: {} });
  const run = async (file: string) => {
    const { toSarif } = await import('../../src/render/sarif.js');
    return toSarif(at(file) as never, { toolVersion: '1.2.3', workingDirectory: '/work/repo' }).runs[0]!;
  };

  it('an absolute path inside it is relative to %SRCROOT%, with no working directory stated (GH1005)', async () => {
    const r = await run('/work/repo/soak/a.ndjson');
    expect(r.results[0]!.locations![0]!.physicalLocation.artifactLocation).toEqual({ uri: 'soak/a.ndjson', uriBaseId: '%SRCROOT%' });
    expect(r.invocations[0]).not.toHaveProperty('workingDirectory');
  });

  it('a path above it (../) is an absolute file URI, and the working directory is stated (GH1006)', async () => {
    const r = await run('../logs/a.ndjson');
    expect(r.results[0]!.locations![0]!.physicalLocation.artifactLocation).toEqual({ uri: 'file:///work/logs/a.ndjson' });
    expect(r.invocations[0]).toMatchObject({ workingDirectory: { uri: 'file:///work/repo/' } });
  });

  it('names each rule in PascalCase (SARIF2012)', async () => {
    const names = Object.fromEntries((await run('a.ndjson')).tool.driver.rules.map((x) => [x.id, x.name]));
    expect(names['dual-writer']).toBe('DualWriter');
    expect(names['404-storm']).toBe('404Storm');
  });
});

describe('SARIF written a result at a time', () => {
  const report = (files: string[], notKnowable = true) => ({
    ...makeReport(),
    ...(notKnowable ? {} : { not_knowable: [] }),
    findings: files.map((file, i) => ({ rule: 'dual-writer', severity: 'error' as const, session: `S${i}`, at: `2025-01-01T00:00:0${i}.000Z`, message: `m${i}`, evidence: [{ file, line: 3 }, { file, line: 4 }] })),
  });

  it('is the same text as the whole log made at once, with and without results or not-knowables, inside and outside the working directory', async () => {
    const { renderSarifChunks, toSarif } = await import('../../src/render/sarif.js');
    for (const notKnowable of [true, false]) {
      for (const files of [[], ['/work/repo/a.ndjson'], ['/work/repo/a.ndjson', '/elsewhere/b.ndjson'], ['/elsewhere/b.ndjson', '/work/repo/a.ndjson']]) {
        const opts = { toolVersion: '1.2.3', lineText, workingDirectory: '/work/repo' };
        const chunks = [...renderSarifChunks(report(files, notKnowable), opts)];
        const whole = `${JSON.stringify(toSarif(report(files, notKnowable), opts), null, 2)}\n`;
        expect(chunks.join(''), `${files.join(' ')} ${notKnowable}`).toBe(whole);
        expect(whole.includes('not knowable for session S4')).toBe(notKnowable);
        if (files.length > 0) expect(chunks.length).toBeGreaterThan(2);
      }
    }
  });
});

describe('SARIF under --max-findings (GitHub code scanning takes 5,000 results a run, refuses more than 25,000)', () => {
  const capped = (maxResults?: number) => JSON.parse(renderSarif(makeReport(), { toolVersion: '1.2.3', workingDirectory: '/work/repo', lineText, ...(maxResults !== undefined && { maxResults }) })).runs[0];

  it('keeps the gravest findings, by severity then the report\'s order, and counts the rest per rule', () => {
    const run = capped(3);
    expect(run.results.map((r: { ruleId: string }) => r.ruleId)).toEqual(['cross-principal-replay', 'silent-truncation', 'event-id-without-session']);
    expect(run.properties).toEqual({ rejectedLines: 2, maxFindings: 3, findingsLeftOut: { 'dual-writer': 1, '404-storm': 1, 'engine-divergence': 1 } });
    const [note] = run.invocations[0].toolExecutionNotifications;
    expect(note.level).toBe('warning');
    expect(note.message.text).toMatch(/^3 of 6 findings left out by --max-findings 3 \(the gravest kept/);
    expect(note.message.text).toContain('engine-divergence 1');
  });

  it('writes the same as the whole report built at once', async () => {
    const { toSarif } = await import('../../src/render/sarif.js');
    const whole = JSON.stringify(toSarif(makeReport(), { toolVersion: '1.2.3', workingDirectory: '/work/repo', lineText, maxResults: 2 }), null, 2);
    expect(renderSarif(makeReport(), { toolVersion: '1.2.3', workingDirectory: '/work/repo', lineText, maxResults: 2 }).trimEnd()).toBe(whole);
  });

  it('near miss: a cap at or above the number of findings leaves the report as without one', () => {
    const plain = renderSarif(makeReport(), { toolVersion: '1.2.3', workingDirectory: '/work/repo', lineText });
    expect(renderSarif(makeReport(), { toolVersion: '1.2.3', workingDirectory: '/work/repo', lineText, maxResults: FINDINGS.length })).toBe(plain);
    expect(capped().results).toHaveLength(FINDINGS.length);
  });

  it('warns on stderr, naming the flag, of a report code scanning would refuse; and says what a cap left out', async () => {
    const { sarifSizeNotes } = await import('../../src/render/sarif.js');
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ ...FINDINGS[0]!, at: new Date(Date.parse(FINDINGS[0]!.at) + i).toISOString() }));
    expect(sarifSizeNotes(many(25_000), undefined)).toEqual([]);
    const [warning, ...more] = sarifSizeNotes(many(25_001), undefined);
    expect(more).toEqual([]);
    expect(warning).toMatch(/25001 results: GitHub code scanning rejects an upload of more than 25,000 .*--max-findings 5000/);
    expect(sarifSizeNotes(many(25_001), 25_001)).toEqual([]);
    expect(sarifSizeNotes(makeReport().findings, 3)).toEqual([expect.stringMatching(/^resumescope: SARIF: 3 of 6 findings left out by --max-findings 3/)]);
  });
});
