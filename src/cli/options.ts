import { existsSync, readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { RunOptions } from '../detect/run.js';
import { parseConfig, parseDuration, type Config } from '../findings/config.js';
import { isRuleId, RULE_IDS, type RuleId } from '../detect/rules/index.js';
import { SEVERITIES, type FailOn } from '../model/severity.js';
import { FORMATS, isFormat, type Format } from '../render/index.js';
import { DEFAULT_MAX_FINDINGS_PER_RULE } from '../render/text.js';
import { UsageError } from './io.js';

// Flags shared by the analysing commands, and how flags and the config file combine.

export function addInputOptions(cmd: Command): Command {
  return cmd
    .option('--db <file>', 'keep the timeline in this SQLite file (default: a temporary one, deleted at exit)')
    .option('--input-format <name>', 'force the input format (resumescope, nginx, envoy, otlp, or a --mapping name) instead of detecting it per file')
    .option('--mapping <file>', 'a JSON mapping file describing another log shape (see src/normalize/formats/README.md)');
}

/** --quiet: no progress line (it is shown on stderr only when stderr is a terminal anyway). */
export function addQuietOption(cmd: Command): Command {
  return cmd.option('-q, --quiet', 'no progress line on stderr (shown only when stderr is a terminal)');
}

export function addThresholdOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'thresholds, disabled rules and gate from a JSON file (default: ./resumescope.config.json if present)')
    .option('--storm-count <n>', '404-storm: POSTs that make a storm (default 5)')
    .option('--storm-window <duration>', '404-storm: window, e.g. 10s (default 10s)')
    .option('--dup-window <duration>', 'duplicate-tool-call: window, e.g. 60s (default 60s)')
    .option('--fence-grace <duration>', 'stale-writer-blocks-reconnect: fence grace period (default 5s)')
    .option('--shared-session-store', 'the server nodes share one session store: a session created on one node is known to all');
}

export function addReportOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('-f, --format <format>', 'output format').choices([...FORMATS]).default('text'))
    .addOption(new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity, or never (default: error, or the config file\'s failOn)').choices([...SEVERITIES, 'never']))
    .option('--rule <ids>', 'only these rules (comma-separated, repeatable)', collect, [])
    .option('--session <ids>', 'only these sessions (comma-separated, repeatable)', collect, [])
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option('--max-findings <n>', `text: findings shown in full per rule, the rest counted per session (default ${DEFAULT_MAX_FINDINGS_PER_RULE})`);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

export interface ThresholdFlags {
  config?: string;
  stormCount?: string;
  stormWindow?: string;
  dupWindow?: string;
  fenceGrace?: string;
  sharedSessionStore?: boolean;
}

export function loadConfig(path: string | undefined): Config {
  const file = path ?? (existsSync('resumescope.config.json') ? 'resumescope.config.json' : undefined);
  if (file === undefined) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${file}: cannot read config (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return parseConfig(text, file);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Flags win over the config file, which wins over the defaults. */
export function detectOptions(flags: ThresholdFlags, config: Config): RunOptions {
  const t = config.thresholds ?? {};
  const out: RunOptions = {
    stormCount: flags.stormCount !== undefined ? positiveInt(flags.stormCount, '--storm-count') : t.stormCount,
    stormWindowMs: flags.stormWindow !== undefined ? duration(flags.stormWindow, '--storm-window') : t.stormWindowMs,
    duplicateCallWindowMs: flags.dupWindow !== undefined ? duration(flags.dupWindow, '--dup-window') : t.duplicateCallWindowMs,
    fenceGraceMs: flags.fenceGrace !== undefined ? duration(flags.fenceGrace, '--fence-grace') : t.fenceGraceMs,
    sharedSessionStore: flags.sharedSessionStore ?? config.sharedSessionStore,
    disabled: config.rules?.disable ?? [],
  };
  return out;
}

const DURATION_UNITS = 'a number with a unit ms, s, m or h (e.g. 500ms, 10s, 5m)';

/**
 * One rule on the command line: a duration takes a unit. "--retention 120"
 * reads as seconds to some and as ms to others, so bare digits are refused,
 * and the message says what each reading would mean rather than guess.
 */
export function duration(s: string, flag: string): number {
  const t = s.trim();
  if (/^\d+(\.\d+)?$/.test(t)) {
    const n = Number(t);
    throw new UsageError(`${flag}: "${t}" has no unit; give ${DURATION_UNITS}: ${t}ms is ${humanMs(n)}, ${t}s is ${humanMs(n * 1000)}`);
  }
  if (!/^\d+(\.\d+)?\s*(ms|s|m|h)$/.test(t)) throw new UsageError(`${flag}: invalid duration "${s}": expected ${DURATION_UNITS}`);
  return parseDuration(t);
}

/** 120000 → "2m", 1500 → "1.5s", 33h… : the size of a duration at a glance. */
function humanMs(ms: number): string {
  const units: [string, number][] = [['h', 3_600_000], ['m', 60_000], ['s', 1000]];
  for (const [u, size] of units) if (ms >= size) return `${Number((ms / size).toFixed(1))}${u}`;
  return `${ms}ms`;
}

export function positiveInt(s: string, flag: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag}: expected a whole number of at least 1, got "${s}"`);
  return n;
}

export function ruleList(ids: string[]): RuleId[] {
  for (const id of ids) {
    if (isRuleId(id)) continue;
    const near = nearRuleIds(id);
    throw new UsageError(`--rule: unknown rule "${id}"${near.length ? ` (did you mean ${near.join(', ')}?)` : ''} (see resumescope rules)`);
  }
  return ids as RuleId[];
}

/** Rule ids a typo was probably meant to be: one holds the other, or a few edits apart. */
function nearRuleIds(typed: string): string[] {
  const t = typed.toLowerCase();
  return RULE_IDS.filter((id) => id.includes(t) || t.includes(id) || editDistance(id, t) <= 3).slice(0, 5);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

export function failOnOf(flag: string | undefined, config: Config): FailOn {
  return (flag as FailOn | undefined) ?? config.failOn ?? 'error';
}

export function formatOf(s: string): Format {
  if (!isFormat(s)) throw new UsageError(`--format: unknown format "${s}"`);
  return s;
}
