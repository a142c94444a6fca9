import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../src/detect/rules/index.js';
import { cli } from '../cli/run-cli.js';
import { examplesOf, readRulesDoc, sectionsOf } from '../docs/rule-examples.js';
import { sarifSchemaValidator } from './sarif-schema.js';

// Issue 13: the SARIF report must pass both validators a CI pipeline uses, on
// realistic output: the SARIF 2.1.0 JSON schema, and Microsoft's SARIF
// Multitool with its SARIF and GitHub (GHAS) rules. The corpus: every rule's
// docs example under relative and absolute paths, a file name with URI
// characters, the samples, stdin, a gzip log, and a report with no finding.

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/resumescope.js');
const SCHEMA_FILE = join(ROOT, 'test/fixtures/sarif-2.1.0.json');
const ODD_NAME = 'odd #1?: é.ndjson';

type Sarif = {
  runs: {
    tool: { driver: { informationUri: string; rules: { id: string; name: string; helpUri: string }[] } };
    invocations: {
      executionSuccessful: boolean;
      workingDirectory?: { uri: string };
      toolExecutionNotifications: { level: string; message: { text: string }; locations?: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[] }[];
    }[];
    results: {
      ruleId: string;
      ruleIndex: number;
      partialFingerprints: Record<string, string>;
      locations: Loc[];
      relatedLocations?: Loc[];
    }[];
  }[];
};
type Loc = { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number } } };

let dir: string;
const corpus = new Map<string, string>(); // name -> SARIF file
const read = (name: string): Sarif => JSON.parse(readFileSync(corpus.get(name)!, 'utf8')) as Sarif;
const locationsOf = (log: Sarif): Loc[] => log.runs[0]!.results.flatMap((r) => [...r.locations, ...(r.relatedLocations ?? [])]);
const runsOf = (prefix: string): Sarif[] => RULE_IDS.map((id) => read(`${prefix}${id}`));

/** Runs the CLI in-process from `cwd`, so that paths are relative to it. */
async function analyzeIn(cwd: string, name: string, ...paths: string[]): Promise<void> {
  await analyzeInput(cwd, name, false, ...paths);
}

/** analyzeIn, where `unusable` says an input is meant to be unusable (exit 2). */
async function analyzeInput(cwd: string, name: string, unusable: boolean, ...paths: string[]): Promise<void> {
  const out = join(dir, 'out', `${name}.sarif`);
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const r = await cli('analyze', ...paths, '-f', 'sarif', '-o', out);
    if (unusable) expect(r.code, r.err).toBe(2);
    else expect(r.code, r.err).toBeLessThan(2);
  } finally {
    process.chdir(before);
  }
  corpus.set(name, out);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-sarif-'));
  const checkout = join(dir, 'checkout');
  mkdirSync(join(checkout, 'logs'), { recursive: true });
  mkdirSync(join(checkout, 'gz'), { recursive: true });
  mkdirSync(join(dir, 'out'));
  const sections = sectionsOf(readRulesDoc());
  for (const id of RULE_IDS) writeFileSync(join(checkout, 'logs', `${id}.ndjson`), `${examplesOf(id, sections.get(id) ?? '').fires.join('\n')}\n`);
  writeFileSync(join(checkout, 'logs', ODD_NAME), readFileSync(join(ROOT, 'samples/writers.ndjson')));
  writeFileSync(join(checkout, 'gz', 'server.ndjson.gz'), gzipSync(readFileSync(join(ROOT, 'samples/replay-integrity.ndjson'))));

  // One run per rule: the examples share session ids, so one run over all of them is another log.
  for (const id of RULE_IDS) {
    await analyzeIn(checkout, `rule-relative-${id}`, `logs/${id}.ndjson`);
    await analyzeIn(ROOT, `rule-absolute-${id}`, join(checkout, 'logs', `${id}.ndjson`));
  }
  await analyzeIn(checkout, 'odd-name-relative', `logs/${ODD_NAME}`);
  await analyzeIn(ROOT, 'odd-name-absolute', join(checkout, 'logs', ODD_NAME));
  await analyzeIn(checkout, 'gzip', 'gz/server.ndjson.gz');
  await analyzeIn(ROOT, 'samples', 'samples');
  await analyzeIn(ROOT, 'absolute-inside-cwd', join(ROOT, 'samples/writers.ndjson'));
  await analyzeIn(ROOT, 'zero-findings', 'samples/clean.ndjson');
  // --max-findings given: fewer results than findings, and the run says what it left out.
  await analyzeIn(ROOT, 'capped', 'samples', '--max-findings', '3');
  await analyzeIn(ROOT, 'rejected-lines', 'test/fixtures/bad-lines.ndjson');
  // Unusable inputs beside a good one: a missing file, a file of no record, one outside the working directory.
  writeFileSync(join(checkout, 'logs', 'no-records.ndjson'), 'hello\nnot json\n');
  writeFileSync(join(dir, 'outside-no-records.ndjson'), '{"level":30,"msg":"listening"}\n');
  await analyzeInput(checkout, 'unusable-inputs', true, `logs/${ODD_NAME}`, 'logs/missing.ndjson', 'logs/no-records.ndjson', join(dir, 'outside-no-records.ndjson'));
  // stdin is the process's own: run the built CLI (dist/) with the log piped in.
  const stdin = spawnSync(process.execPath, [BIN, 'analyze', '-', '-f', 'sarif'], {
    cwd: ROOT,
    input: readFileSync(join(ROOT, 'samples/replay-integrity.ndjson')),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(stdin.status, stdin.stderr).toBe(1);
  writeFileSync(join(dir, 'out', 'stdin.sarif'), stdin.stdout);
  corpus.set('stdin', join(dir, 'out', 'stdin.sarif'));
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the SARIF corpus', () => {
  it('has a result of every rule, and each kind of path', () => {
    for (const [i, id] of RULE_IDS.entries()) {
      const rel = runsOf('rule-relative-')[i]!;
      expect(rel.runs[0]!.results.map((r) => r.ruleId), id).toContain(id);
      for (const l of locationsOf(rel)) expect(l.physicalLocation.artifactLocation).toEqual({ uriBaseId: '%SRCROOT%', uri: `logs/${id}.ndjson` });
      expect(rel.runs[0]!.invocations[0]!.workingDirectory).toBeUndefined();

      const abs = runsOf('rule-absolute-')[i]!;
      expect(abs.runs[0]!.results.map((r) => r.ruleId), id).toContain(id);
      for (const l of locationsOf(abs)) {
        expect(l.physicalLocation.artifactLocation.uriBaseId).toBeUndefined();
        expect(fileURLToPath(l.physicalLocation.artifactLocation.uri)).toBe(join(dir, 'checkout', 'logs', `${id}.ndjson`));
      }
      // GH1006: with absolute file URIs, code scanning needs the checkout path.
      expect(abs.runs[0]!.invocations[0]!.workingDirectory!.uri).toBe(`${pathToFileURL(ROOT).href.replace(/\/?$/, '/')}`);
    }

    // An absolute path inside the working directory is still relative to %SRCROOT% (GH1005).
    const inside = locationsOf(read('absolute-inside-cwd'));
    expect(inside.length).toBeGreaterThan(0);
    for (const l of inside) expect(l.physicalLocation.artifactLocation).toEqual({ uri: 'samples/writers.ndjson', uriBaseId: '%SRCROOT%' });

    expect(locationsOf(read('stdin')).map((l) => l.physicalLocation.artifactLocation.uri)).toContain('%3Cstdin%3E');
    expect(locationsOf(read('gzip')).map((l) => l.physicalLocation.artifactLocation.uri)).toContain('gz/server.ndjson.gz');
    const zero = read('zero-findings');
    expect(zero.runs[0]!.results).toEqual([]);
    expect(zero.runs[0]!.tool.driver.rules.map((r) => r.id)).toEqual([...RULE_IDS]);
  });

  it('escapes a file name with #, ? and : so it reads back as the same path, not a fragment, query or scheme', () => {
    const odd = [...new Set(locationsOf(read('odd-name-relative')).map((l) => l.physicalLocation.artifactLocation.uri))];
    expect(odd).toEqual(['logs/odd%20%231%3F%3A%20%C3%A9.ndjson']);
    expect(decodeURIComponent(odd[0]!)).toBe(`logs/${ODD_NAME}`);
    const absOdd = [...new Set(locationsOf(read('odd-name-absolute')).map((l) => l.physicalLocation.artifactLocation.uri))];
    expect(absOdd.map((u) => fileURLToPath(u))).toEqual([join(dir, 'checkout', 'logs', ODD_NAME)]);
  });

  it('fingerprints every result, uniquely within a run and the same whichever way the log was named', () => {
    const keys = (log: Sarif) => log.runs[0]!.results.map((r) => r.partialFingerprints['resumescope/findingKey/v2']);
    for (const name of corpus.keys()) {
      const k = keys(read(name));
      expect(k.every((x) => typeof x === 'string' && /^[0-9a-f]{16}$/.test(x))).toBe(true);
      expect(new Set(k).size).toBe(k.length);
    }
    for (const id of RULE_IDS) expect(keys(read(`rule-absolute-${id}`)).sort()).toEqual(keys(read(`rule-relative-${id}`)).sort());
    expect(keys(read('odd-name-absolute')).sort()).toEqual(keys(read('odd-name-relative')).sort());
    expect(keys(read('stdin')).sort()).toEqual(keys(read('gzip')).sort()); // same log, read two ways
  });

  it('has absolute https information and help URIs, rule names, consistent rule indexes and lines from 1', () => {
    for (const name of corpus.keys()) {
      const run = read(name).runs[0]!;
      expect(run.tool.driver.informationUri).toMatch(/^https:\/\//);
      for (const r of run.tool.driver.rules) {
        expect(new URL(r.helpUri).protocol).toBe('https:');
        expect(r.helpUri.endsWith(`#${r.id}`)).toBe(true);
        expect(r.name).toMatch(/^[0-9A-Z][A-Za-z0-9]*$/);
        expect(r.name).not.toBe(r.id); // SARIF1001: a name equal to the id must be left out
      }
      for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex]!.id).toBe(r.ruleId);
      for (const l of locationsOf(read(name))) expect(Number.isInteger(l.physicalLocation.region.startLine) && l.physicalLocation.region.startLine >= 1).toBe(true);
      expect(run.invocations[0]!.executionSuccessful, name).toBe(name !== 'unusable-inputs');
    }
  });

  it('counts rejected lines in a warning and the run\'s properties, and a log without any has neither', () => {
    const run = read('rejected-lines').runs[0]! as Sarif['runs'][number] & { properties?: { rejectedLines: number } };
    expect(run.properties).toEqual({ rejectedLines: 3 });
    expect(run.invocations[0]!.toolExecutionNotifications.filter((n) => n.level === 'warning').map((n) => n.message.text)).toEqual([
      expect.stringMatching(/^3 rejected lines could not be read as records; see which and why with `resumescope query rejected`/),
    ]);
    const clean = read('zero-findings').runs[0]!;
    expect(clean).not.toHaveProperty('properties');
    expect(clean.invocations[0]!.toolExecutionNotifications).toEqual([]);
  });

  it('carries only the gravest findings under --max-findings, and counts the rest per rule in a warning and the run\'s properties', () => {
    const all = read('samples').runs[0]!;
    const run = read('capped').runs[0]! as Sarif['runs'][number] & { properties?: { maxFindings: number; findingsLeftOut: Record<string, number> } };
    expect(run.results).toHaveLength(3);
    const leftOut = Object.values(run.properties!.findingsLeftOut).reduce((a, b) => a + b, 0);
    expect(run.properties!.maxFindings).toBe(3);
    expect(leftOut).toBe(all.results.length - 3);
    const warnings = run.invocations[0]!.toolExecutionNotifications.filter((n) => n.level === 'warning');
    expect(warnings.map((n) => n.message.text)).toContainEqual(expect.stringContaining(`${leftOut} of ${all.results.length} findings left out by --max-findings 3`));
    expect(all.results.filter((r) => (r as unknown as { level: string }).level === 'error').length).toBeGreaterThanOrEqual(3);
    for (const r of run.results) expect((r as unknown as { level: string }).level).toBe('error');
    expect(read('samples').runs[0]!).not.toHaveProperty('properties.findingsLeftOut');
  });

  it('says a run with unusable inputs did not succeed, with an error at each unusable file', () => {
    const invocation = read('unusable-inputs').runs[0]!.invocations[0]!;
    const errors = invocation.toolExecutionNotifications.filter((n) => n.level === 'error');
    expect(errors.map((n) => n.locations?.[0]?.physicalLocation.artifactLocation)).toEqual([
      { uri: 'logs/missing.ndjson', uriBaseId: '%SRCROOT%' },
      { uri: 'logs/no-records.ndjson', uriBaseId: '%SRCROOT%' },
      { uri: pathToFileURL(join(dir, 'outside-no-records.ndjson')).href },
    ]);
    // A file outside %SRCROOT% is an absolute URI, and the checkout is stated (GH1006), as for a result.
    expect(invocation.workingDirectory).toBeDefined();
    expect(read('unusable-inputs').runs[0]!.results.length).toBeGreaterThan(0);
  });
});

describe('the SARIF 2.1.0 JSON schema', () => {
  const validator = sarifSchemaValidator;

  it('accepts every report of the corpus', () => {
    const validate = validator();
    for (const [name, file] of corpus) {
      const ok = validate(JSON.parse(readFileSync(file, 'utf8')));
      expect({ name, errors: ok ? [] : validate.errors }).toEqual({ name, errors: [] });
    }
  });

  it('rejects a report with a relative helpUri (so the check can fail)', () => {
    const broken = read('samples');
    broken.runs[0]!.tool.driver.rules[0]!.helpUri = 'docs/rules.md#x y';
    expect(validator()(broken)).toBe(false);
  });

  it('is the file the installed multitool ships, unchanged', () => {
    let packaged: string | undefined;
    try {
      packaged = join(dirname(require('@microsoft/sarif-multitool') as string), 'sarif-2.1.0.json');
    } catch {
      // no multitool package for this platform: the vendored copy stands alone
    }
    if (packaged === undefined || !existsSync(packaged)) return;
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(readFileSync(packaged, 'utf8'));
  });
});

/** The multitool binary for this platform, if installed (@microsoft/sarif-multitool-<platform>). */
function multitool(): string | undefined {
  try {
    const bin = require('@microsoft/sarif-multitool') as string;
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const MULTITOOL = multitool();
// On CI (Linux) it must run; elsewhere a missing platform package is said, not hidden.
if (!MULTITOOL && process.env.CI !== 'true') console.warn(`sarif-multitool: no binary for ${process.platform}; only the schema check ran`);

describe.runIf(MULTITOOL !== undefined || process.env.CI === 'true')('Microsoft SARIF Multitool validate, SARIF and GitHub rules', () => {
  it('reports nothing, no error, warning or note, on any report of the corpus', () => {
    expect(MULTITOOL, 'the @microsoft/sarif-multitool binary for this platform').toBeDefined();
    // A known-bad report beside ours proves the rules ran: its results, and only its, come back.
    const bad = read('samples');
    bad.runs[0]!.tool.driver.rules[0]!.helpUri = 'docs/rules.md#404-storm';
    const badFile = join(dir, 'out', 'zz-known-bad.sarif');
    writeFileSync(badFile, JSON.stringify(bad));
    const out = join(dir, 'validation.sarif');
    // Its time grows with the content: absolute paths are shown by two of the rules' runs, not all.
    const files = [...corpus].filter(([name]) => !name.startsWith('rule-absolute-') || name.endsWith(RULE_IDS[0]!) || name.endsWith(RULE_IDS.at(-1)!)).map(([, f]) => f);
    // Called directly, not through its bin.js (which runs a shell that splits "Sarif;Ghas").
    const r = spawnSync(MULTITOOL!, ['validate', ...files, badFile, '-o', out, '--rule-kind', 'Sarif;Ghas', '--log', 'ForceOverwrite'], {
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1' },
    });
    expect(r.error, r.stderr).toBeUndefined();
    expect(r.stdout).toContain(`${files.length + 1} files scanned`);
    const results = (JSON.parse(readFileSync(out, 'utf8')) as { runs: { results?: { ruleId: string; level?: string; locations: Loc[] }[] }[] }).runs[0]!.results ?? [];
    const ours = results.filter((x) => !x.locations[0]!.physicalLocation.artifactLocation.uri.endsWith('zz-known-bad.sarif'));
    expect(ours.map((x) => `${x.ruleId} ${x.level ?? 'warning'} ${x.locations[0]!.physicalLocation.artifactLocation.uri}`)).toEqual([]);
    expect(results.map((x) => x.ruleId)).toContain('SARIF1002');
  }, 200_000);
});
