import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { ruleUnits, workUnits } from '../../src/detect/parallel.js';
import type { RuleModule } from '../../src/detect/rule.js';
import { RULES } from '../../src/detect/rules/index.js';
import { fromDist } from '../helpers/dist.js';

// The rules on two threads must report what one thread reports, byte for byte. The worker runs from
// dist/ only: these tests use the build (test/helpers/dist.ts).

type Parallel = typeof import('../../src/detect/parallel.js');
type Run = typeof import('../../src/detect/run.js');
type Scratch = typeof import('../../src/store/scratch-db.js');
type Pipeline = typeof import('../../src/pipeline/ingest.js');
type Sources = typeof import('../../src/read/sources.js');
type WhatIf = typeof import('../../src/whatif/what-if.js');
type Catalogue = typeof import('../../src/detect/rules/index.js');
type Derived = typeof import('../../src/pipeline/derived.js');

let parallel: Parallel, run: Run, scratch: Scratch, pipeline: Pipeline, sources: Sources, whatif: WhatIf, catalogue: Catalogue, derived: Derived;
let dir: string;

beforeAll(async () => {
  [parallel, run, scratch, pipeline, sources, whatif, catalogue, derived] = await Promise.all([
    fromDist<Parallel>('detect/parallel.js'), fromDist<Run>('detect/run.js'), fromDist<Scratch>('store/scratch-db.js'),
    fromDist<Pipeline>('pipeline/ingest.js'), fromDist<Sources>('read/sources.js'), fromDist<WhatIf>('whatif/what-if.js'),
    fromDist<Catalogue>('detect/rules/index.js'), fromDist<Derived>('pipeline/derived.js'),
  ]);
});

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The report with its findings and not-knowables read out of their tables, in report order. */
function inMemory<R extends { findings: Iterable<unknown>; not_knowable: Iterable<unknown> }>(report: R) {
  return { ...report, findings: [...report.findings], not_knowable: [...report.not_knowable] };
}

/** This process's scratch folders (store/scratch-db.ts): the timeline's, and any a run left behind. */
function scratchFolders(): string[] {
  return readdirSync(tmpdir()).filter((f) => f.startsWith(`resumescope-scratch-${process.pid}-`)).sort();
}

/** With this worker script in place of the rules worker, the two-thread report is still the one-thread report. */
async function expectOneThreadsReportWith(workerSource: string): Promise<void> {
  const db = await badServerTimeline();
  try {
    const script = join(dir, 'rules-worker-stand-in.mjs');
    writeFileSync(script, workerSource);
    const two = inMemory(await parallel.detectOnTwoThreads(db, {}, { threads: 'worker', script: pathToFileURL(script) }));
    expect(JSON.stringify(two)).toBe(JSON.stringify(run.detectDerived(db, {})));
  } finally {
    db.close();
  }
}

/** Runs a check on badServerTimeline(), closing it after. */
async function onBadServerTimeline(check: (db: Awaited<ReturnType<typeof badServerTimeline>>) => Promise<void>): Promise<void> {
  const db = await badServerTimeline();
  try {
    await check(db);
  } finally {
    db.close();
  }
}

/** A timeline with findings of many rules, in a file a second connection can open. */
async function badServerTimeline() {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-parallel-'));
  const log = join(dir, 'bad.ndjson');
  await generate(log, 6000, { shape: 'bad-server', seed: 11 });
  const db = scratch.openScratchDb({ quotesFromFiles: true });
  await pipeline.ingestAll(db, sources.expandPaths([log]), { threads: 'inline' });
  derived.derive(db);
  return db;
}

describe('detect on two threads', () => {
  it('reports exactly what one thread reports, findings of many rules in the same order', () =>
    onBadServerTimeline(async (db) => {
      const two = inMemory(await parallel.detectOnTwoThreads(db, {}, { threads: 'worker' }));
      const one = run.detectDerived(db, {});
      expect(Object.keys(one.summary.by_rule).length).toBeGreaterThan(5);
      expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    }), 60_000);

  it("judges a caller's variant of a rule here, with the rules sharing its facts, and the catalogue's there: one thread's report", () =>
    onBadServerTimeline(async (db) => {
      let ran = 0;
      // silent-truncation without its findings: a function of this thread, in the unit of the reconnect facts.
      const variant = (rule: RuleModule): RuleModule =>
        rule.id !== 'silent-truncation' ? rule : { ...rule, detect: (ctx) => (ran++, { ...rule.detect(ctx), findings: [] }) };
      const rules = catalogue.RULES.map(variant);
      const two = inMemory(await parallel.detectOnTwoThreads(db, { rules }, { threads: 'worker' }));
      expect(ran).toBe(1);
      const one = run.detectDerived(db, { rules });
      expect(one.summary.by_rule['silent-truncation'] ?? 0).toBe(0);
      expect(run.detectDerived(db, {}).summary.by_rule['silent-truncation']).toBeGreaterThan(0);
      expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    }), 60_000);

  it('answers a what-if question on two threads as on one', () =>
    onBadServerTimeline(async (db) => {
      const opts = { change: { retention: { maxAgeMs: 2_000 }, fenceGraceMs: 10_000, unresumable: 'reset' as const } };
      const two = await whatif.whatIf(db, opts, { threads: 'worker' });
      const one = await whatif.whatIf(db, opts, { threads: 'inline' });
      expect(two.appeared.length + two.disappeared.length).toBeGreaterThan(0);
      expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    }), 60_000);

  it('loses nothing when the worker thread dies: what it did not answer for runs on this thread', async () => {
    // Claims the first four units (the summary among them), answers for none, and dies.
    await expectOneThreadsReportWith(
      `import { workerData } from 'node:worker_threads';
       Atomics.add(workerData.counter, 0, 4);
       process.exit(4);`,
    );
  }, 60_000);

  it('adopts only the rules the worker reported: findings it wrote for a rule it never reported are judged again, once', async () => {
    const dist = (path: string) => JSON.stringify(new URL(`../../dist/${path}`, import.meta.url).href);
    // Judges and reports the first unit of rules it claims, claims all the rest, writes a finding for
    // a rule it did not report (as a rule that dies mid-way would), and dies.
    await expectOneThreadsReportWith(
      `import { parentPort, workerData } from 'node:worker_threads';
       import { FindingsFile } from ${dist('detect/findings-file.js')};
       import { detectOptionsOf, runRules } from ${dist('detect/run.js')};
       import { RULES, ruleOf } from ${dist('detect/rules/index.js')};
       import { openDb } from ${dist('store/db.js')};
       const { counter, units, findingsPath, path } = workerData;
       let unit;
       for (let i = Atomics.add(counter, 0, 1); i < units.length && unit === undefined; i = Atomics.add(counter, 0, 1)) {
         if (units[i] !== 'summary') unit = units[i].rules;
       }
       Atomics.add(counter, 0, 1000);
       const file = FindingsFile.create(findingsPath);
       runRules(openDb(path, { readonly: true }), detectOptionsOf({}), unit.map(ruleOf), (rule, out) => {
         file.add(out.findings);
         parentPort.postMessage({ type: 'rule', rule, notKnowable: out.notKnowable });
       });
       const other = RULES.find((r) => !unit.includes(r.id)).id;
       file.add([{ rule: other, session: 's', atMs: 0, message: 'half done', evidenceIds: [1] }]);
       file.close();
       process.exit(4);`,
    );
  }, 60_000);

  it('leaves no findings file behind', async () => {
    const db = await badServerTimeline();
    try {
      const before = scratchFolders();
      await parallel.detectOnTwoThreads(db, {}, { threads: 'worker' });
      expect(scratchFolders()).toEqual(before);
    } finally {
      db.close();
    }
  }, 60_000);

  it('judges on this thread alone, as one thread does, where TMPDIR takes no folder for the findings file', async () => {
    const db = await badServerTimeline();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent-resumescope-tmp/tmp';
    try {
      // A script that would fail the run if it were started.
      const never = join(dir, 'never.mjs');
      writeFileSync(never, `throw new Error('started');`);
      const two = inMemory(await parallel.detectOnTwoThreads(db, {}, { threads: 'worker', script: pathToFileURL(never) }));
      expect(two.findings.length).toBeGreaterThan(0);
      expect(JSON.stringify(two)).toBe(JSON.stringify(run.detectDerived(db, {})));
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      db.close();
    }
  }, 60_000);

  it('stays on one thread for a database no second connection can open', async () => {
    const db = (await fromDist<typeof import('../../src/store/db.js')>('store/db.js')).openDb(':memory:');
    try {
      // A script that would fail the run if it were started.
      dir = mkdtempSync(join(tmpdir(), 'resumescope-parallel-'));
      const never = join(dir, 'never.mjs');
      writeFileSync(never, `throw new Error('started');`);
      const report = await parallel.detectOnTwoThreads(db, {}, { threads: 'worker', script: pathToFileURL(never) });
      expect(report.findings.length).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('the units of work', () => {
  it('runs every rule once, rules sharing a fact in one unit in catalogue order', () => {
    const units = ruleUnits(RULES);
    const ids = units.flat().map((r) => r.id);
    expect([...ids].sort()).toEqual(RULES.map((r) => r.id).sort());
    for (const rule of RULES) {
      for (const fact of rule.facts ?? []) {
        const holding = units.filter((u) => u.some((r) => r.facts?.includes(fact)));
        expect(holding, `${rule.id}'s fact in one unit`).toHaveLength(1);
      }
    }
    const order = RULES.map((r) => r.id as string);
    for (const u of units) expect(u.map((r) => order.indexOf(r.id))).toEqual(u.map((r) => order.indexOf(r.id)).sort((a, b) => a - b));
  });

  it('without the rules that share facts, each rule is a unit of its own', () => {
    const alone = RULES.filter((r) => (r.facts ?? []).length === 0);
    expect(ruleUnits(alone).every((u) => u.length === 1)).toBe(true);
  });

  it('claims the longest first: the rules of the reconnect facts, engine-divergence, then the summary among the rest', () => {
    const work = workUnits(RULES);
    expect(work.filter((u) => u === 'summary')).toHaveLength(1);
    expect(work.flatMap((u) => (u === 'summary' ? [] : u))).toHaveLength(RULES.length);
    expect((work[0] as RuleModule[]).length).toBeGreaterThan(1);
    expect((work[1] as RuleModule[]).map((r) => r.id)).toEqual(['engine-divergence']);
    const at = (id: string) => work.findIndex((u) => u !== 'summary' && u.some((r) => r.id === id));
    expect(work.indexOf('summary')).toBeGreaterThan(at('duplicate-tool-call'));
    expect(work.indexOf('summary')).toBeLessThan(at('session-id-reuse'));
  });
});
