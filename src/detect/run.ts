import type { NotKnowable, Report } from '../model/finding.js';
import { FindingTable } from './finding-table.js';
import { NotKnowableSpool, type NotKnowableTable } from './not-knowable-spool.js';
import type { Db } from '../store/db.js';
import { assertDerived } from '../store/derive.js';
import { refreshStatistics } from '../store/statistics.js';
import type { RuleContext, RuleModule, SharedFact } from './rule.js';
import { explainEngineDivergences } from './rules/engine-divergence.js';
import { countsInCatalogueOrder, RULE_IDS, RULES } from './rules/index.js';
import { summarize, type InputSummary } from './summary.js';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions, type DetectorOutput, type RawFinding } from './types.js';
import { appendAll } from '../model/arrays.js';

export interface RunOptions extends Partial<DetectOptions> {
  /** Rules switched off by configuration. */
  disabled?: readonly string[];
  /** The rules to run, in catalogue order (what-if swaps some for variants); all by default. */
  rules?: readonly RuleModule[];
}

/**
 * Runs every rule over a derived timeline and assembles the contract's report, its findings in memory.
 * pipeline/derived.ts `detect` derives first (the library's `detect`).
 */
export function detectDerived(db: Db, opts: RunOptions = {}): Report {
  const report = detectIntoTable(db, opts);
  try {
    return { ...report, findings: report.findings.toArray(), not_knowable: [...report.not_knowable] };
  } finally {
    report.findings.drop();
    report.not_knowable.drop();
  }
}

/** A report whose findings and not-knowables are kept in tables, read in order (analyze). */
export type TableReport = Report<FindingTable> & { not_knowable: NotKnowableTable };

/** detectDerived(), its findings set down in a table as the rules report them (detect/finding-table.ts). */
export function detectIntoTable(db: Db, opts: RunOptions = {}): TableReport {
  assertDerived(db, 'detect');
  refreshStatistics(db);
  const options = detectOptionsOf(opts);
  const sink = new ReportSink(db);
  try {
    withCacheKiB(db, DETECT_CACHE_KIB, () => runRules(db, options, enabledRules(opts), sink.take, sink.takeEarly));
    return sink.report(summarize(db, options));
  } catch (err) {
    sink.discard();
    throw err;
  }
}

export function detectOptionsOf(opts: RunOptions): DetectOptions {
  return { ...DEFAULT_DETECT_OPTIONS, ...stripUndefined(opts) };
}

/** The rules a run judges, in catalogue order, less those switched off. */
export function enabledRules(opts: RunOptions): RuleModule[] {
  const disabled = new Set(opts.disabled ?? []);
  return (opts.rules ?? RULES).filter((rule) => !disabled.has(rule.id));
}

/** Where a rule's findings go as it hands them over (RuleContext.handOver), before its output is taken. */
export type TakeEarly = (rule: string, findings: RawFinding[]) => void;

/**
 * Runs these rules in order over one connection, each fact computed once and let go after the last of
 * them that declares it. Each rule's output goes to `take` as soon as the rule is done, so that a run
 * holds one rule's findings at a time, not all of them; what a rule hands over before then goes to
 * `takeEarly`, or, without one, comes first in its output.
 */
export function runRules(
  db: Db, options: DetectOptions, rules: readonly RuleModule[], take: (rule: string, out: DetectorOutput) => void, takeEarly?: TakeEarly,
): void {
  const releaseAfter = factReleases(rules);
  const facts = new Map<SharedFact, unknown>();
  try {
    rules.forEach((rule, i) => {
      const early: RawFinding[] = [];
      const handOver = (findings: RawFinding[]) => {
        checkOwn(rule, findings);
        if (takeEarly) takeEarly(rule.id, findings);
        else appendAll(early, findings);
      };
      const out = rule.detect(contextOf(db, options, rule, facts, handOver));
      checkOwn(rule, [...out.findings, ...out.notKnowable]);
      take(rule.id, early.length > 0 ? { ...out, findings: [...early, ...out.findings] } : out);
      for (const fact of releaseAfter.get(i) ?? []) release(facts, fact);
    });
  } finally {
    for (const fact of [...facts.keys()]) release(facts, fact);
  }
}

function checkOwn(rule: RuleModule, reported: readonly { rule: string }[]): void {
  const stray = reported.find((f) => f.rule !== rule.id);
  if (stray !== undefined) throw new Error(`rule ${rule.id} reported for ${stray.rule}`);
}

/**
 * Where the rules' outputs go, from whichever thread ran them: the findings into a table, what
 * could not be judged into a spool. The report it makes is the same however the rules were shared
 * out and whatever order they came in (the table reads findings back in timeline order).
 */
export class ReportSink {
  private readonly table: FindingTable;
  private readonly notKnowable: NotKnowableSpool;
  private readonly taken = new Set<string>();
  /** Rules whose findings another thread set down in a findings file, not yet adopted. */
  private stored: string[] = [];

  constructor(private readonly db: Db) {
    this.table = FindingTable.create(db);
    this.notKnowable = NotKnowableSpool.create(db);
  }

  readonly take = (rule: string, out: DetectorOutput): void => {
    this.claim(rule, out.notKnowable);
    this.table.add(out.findings);
  };

  /** Findings a rule hands over before it is done (the table keeps them in the order they came). */
  readonly takeEarly: TakeEarly = (rule, findings) => {
    if (this.taken.has(rule)) throw new Error(`rule ${rule} handed findings over after it was done`);
    // The rule hands them over while it reads, one of its queries' rows still coming on this connection,
    // which better-sqlite3 refuses to write on unless told. They go to the report's own table, which no
    // rule reads, so the rows being read cannot change under the rule.
    this.db.unsafeMode(true);
    try {
      this.table.add(findings);
    } finally {
      this.db.unsafeMode(false);
    }
  };

  /** A rule done on another thread, its findings committed to that thread's findings file (adoptStored). */
  takeStored(rule: string, notKnowable: NotKnowable[]): void {
    this.claim(rule, notKnowable);
    this.stored.push(rule);
  }

  /** The findings of the rules takeStored took, from the findings file they were set down in. */
  adoptStored(findingsPath: string): void {
    this.table.adopt(findingsPath, this.stored);
    this.stored = [];
  }

  has(rule: string): boolean {
    return this.taken.has(rule);
  }

  private claim(rule: string, notKnowable: NotKnowable[]): void {
    if (this.taken.has(rule)) throw new Error(`rule ${rule} was reported twice`);
    this.taken.add(rule);
    // A not-knowable repeats only within its own rule: deduplicated per rule, a rule's keys at a time.
    this.notKnowable.add(dedupeNotKnowable(notKnowable));
  }

  /** A run that failed leaves no table behind. */
  discard(): void {
    this.table.drop();
    this.notKnowable.drop();
  }

  report(inputSummary: InputSummary): TableReport {
    if (this.stored.length > 0) throw new Error(`the findings of ${this.stored.join(', ')} were not adopted`);
    explainEngineDivergences(this.table, RULE_IDS, RULE_IDS.filter((r) => !this.taken.has(r)));
    const findings = this.table.seal();
    return { version: 1, findings, not_knowable: this.notKnowable.seal(), summary: { ...inputSummary, by_rule: countsInCatalogueOrder(findings.countByRule()) } };
  }
}

/** Drops a fact from the run, and the temporary table it reads from if it has one (FactTable). */
function release(facts: Map<SharedFact, unknown>, fact: SharedFact): void {
  const value = facts.get(fact) as { release?: () => void } | undefined;
  facts.delete(fact);
  value?.release?.();
}

/**
 * SQLite's page budget while the rules run. Each sort a rule query makes (its
 * windows, ORDER BY, GROUP BY) may hold as much as the page cache in memory
 * before it spills to a temporary file, and a rule query holds several at once:
 * at 3M production lines SQLite's own allocations peaked at 282 MB with the
 * default 16 MB, 172 MB with 2 MB, for rules about 4% slower (400k bad-server:
 * 13.3 s against 13.8 s). Ingest and derive keep the default: their index builds sort.
 */
export const DETECT_CACHE_KIB = 2048;

export function withCacheKiB<T>(db: Db, kib: number, run: () => T): T {
  const before = setCacheKiB(db, kib);
  try {
    return run();
  } finally {
    restoreCache(db, before);
  }
}

type CacheSizes = (readonly ['main' | 'temp', number])[];

function setCacheKiB(db: Db, kib: number): CacheSizes {
  // The temporary schema too: the fact tables (detect/fact-table.ts) live there.
  const before = (['main', 'temp'] as const).map((schema) => [schema, db.pragma(`${schema}.cache_size`, { simple: true }) as number] as const);
  for (const [schema] of before) db.pragma(`${schema}.cache_size = -${kib}`);
  return before;
}

function restoreCache(db: Db, before: CacheSizes): void {
  // The temporary schema's 0 means "never set" (the compiled default): it keeps the budget, as setting 0 would leave it no cache.
  for (const [schema, size] of before) if (size !== 0) db.pragma(`${schema}.cache_size = ${size}`);
}

export async function withCacheKiBAsync<T>(db: Db, kib: number, run: () => Promise<T>): Promise<T> {
  const before = setCacheKiB(db, kib);
  try {
    return await run();
  } finally {
    restoreCache(db, before);
  }
}

/** Per rule (by position), the shared facts no later rule declares: the run drops them after it. */
export function factReleases(rules: readonly Pick<RuleModule, 'facts'>[]): Map<number, SharedFact[]> {
  const last = new Map<SharedFact, number>();
  rules.forEach((rule, i) => rule.facts?.forEach((fact) => last.set(fact, i)));
  const out = new Map<number, SharedFact[]>();
  for (const [fact, i] of last) out.set(i, [...(out.get(i) ?? []), fact]);
  return out;
}

/** One rule's context: a fact several rules read is computed once, on first use, if the rule declares it. */
function contextOf(db: Db, opts: DetectOptions, rule: RuleModule, facts: Map<SharedFact, unknown>, handOver: RuleContext['handOver']): RuleContext {
  return {
    db,
    opts,
    handOver,
    shared<T>(fact: SharedFact<T>): T {
      // An undeclared fact would be let go before this rule asks for it, and loaded again.
      if (!rule.facts?.includes(fact)) throw new Error(`rule ${rule.id} asks for a shared fact (${fact.name || 'anonymous'}) it does not declare in facts`);
      if (!facts.has(fact)) facts.set(fact, fact(db, opts));
      return facts.get(fact) as T;
    },
  };
}

/** One rule's not-knowables, each once. */
function dedupeNotKnowable(list: NotKnowable[]): NotKnowable[] {
  const seen = new Set<string>();
  return list.filter((n) => {
    const k = `${n.session}\0${n.reason}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
