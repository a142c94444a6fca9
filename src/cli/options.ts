import { existsSync, readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { RunOptions } from '../detect/run.js';
import { configSummary, parseConfig, parseDuration, type Config } from '../findings/config.js';
import { defaultText, SETTINGS, THRESHOLD_SETTINGS, type Setting, type SettingName } from '../findings/settings.js';
import { isRuleId, RULE_IDS, type RuleId } from '../detect/rules/index.js';
import { SEVERITIES, type FailOn } from '../model/severity.js';
import { FORMATS, isFormat, type Format } from '../render/index.js';
import { DEFAULT_MAX_FINDINGS_PER_RULE } from '../render/text.js';
import { DEFAULT_HTML_MAX_FINDINGS } from '../render/html/findings.js';
import { UsageError, type Io } from './io.js';
import { nearMatches } from './near-matches.js';

// Flags shared by the analysing commands, and how flags and the config file combine.
// The settings (thresholds, gate) come from one table, findings/settings.ts: each
// flag, its config key and its default are written there and nowhere else.

export function addInputOptions(cmd: Command): Command {
  return cmd
    .option('--db <file>', 'keep the timeline in this SQLite file (default: a temporary one, deleted at exit)')
    .option('--input-format <name>', 'force the input format (resumescope, nginx, envoy, otlp, or a --mapping name) instead of detecting it per file')
    .option('--mapping <file>', 'a JSON mapping file describing another log shape (see src/normalize/formats/README.md)')
    .option('-r, --recursive', "read a folder's subfolders too (default: its own log files, and a note naming subfolders that hold more)")
    .option('--json-array', 'read a file that is one JSON array (gcloud logging read --format=json, a console\'s JSON export, aws logs filter-log-events) an entry at a time, each entry a line')
    .option('--csv', "read a log console's CSV download (Splunk, CloudWatch Logs Insights, Kibana, Azure Log Analytics) a row at a time, the line in its _raw, @message, message, LogMessage or LogEntry column");
}

/** --quiet: no progress line (it is shown on stderr only when stderr is a terminal anyway). */
export function addQuietOption(cmd: Command): Command {
  return cmd.option('-q, --quiet', 'no progress line on stderr (shown only when stderr is a terminal)');
}

export function addConfigOption(cmd: Command, help = 'thresholds, disabled rules and gate from a JSON file'): Command {
  return cmd.option('--config <file>', `${help} (default: ./resumescope.config.json if present)`);
}

/**
 * The commander option of one setting. No commander default: a flag left out
 * must leave room for the config file, so the default is written into the help.
 * `whatif` asks its question instead of stating the setting.
 */
function settingOption(name: SettingName, mode: 'run' | 'whatif' = 'run'): Option {
  const s: Setting = SETTINGS[name];
  if (s.flag === undefined) throw new Error(`setting ${name} has no flag`);
  const help = mode === 'whatif' && s.whatIf !== undefined ? s.whatIf : s.help;
  const option = new Option(s.argument ? `${s.flag} ${s.argument}` : s.flag, `${help} (default: ${defaultText(s)}; config: ${s.config})`);
  return s.type === 'fail-on' ? option.choices([...SEVERITIES, 'never']) : option;
}

export function addSettingOptions(cmd: Command, names: readonly SettingName[], mode: 'run' | 'whatif' = 'run'): Command {
  for (const name of names) cmd.addOption(settingOption(name, mode));
  return cmd;
}

export function addThresholdOptions(cmd: Command): Command {
  return addSettingOptions(addConfigOption(cmd), THRESHOLD_SETTINGS);
}

export function addReportOptions(cmd: Command): Command {
  return addSettingOptions(cmd.addOption(new Option('-f, --format <format>', 'output format').choices([...FORMATS]).default('text')), ['failOn'])
    .option('--rule <ids>', 'only these rules (comma-separated, repeatable)', collect, [])
    .option('--session <ids>', 'only these sessions (comma-separated, repeatable)', collect, [])
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option(
      '--max-findings <n>',
      `findings per rule shown in full (text; default: ${DEFAULT_MAX_FINDINGS_PER_RULE}) or carried, paged (html; default: ${DEFAULT_HTML_MAX_FINDINGS}); the rest counted per session; ` +
        'sarif: results in all, the gravest kept and the rest counted per rule (default: every finding; GitHub code scanning takes 5000)',
    );
}

/** Comma-separated and repeatable: `--rule a,b --rule c`. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

/** Parsed flags as commander hands them over: settings under their flag's camelCase name. */
export type SettingFlags = Record<string, unknown> & { config?: string };

/** The commander attribute a setting's flag lands in (--dup-window → dupWindow). */
export function flagKey(name: SettingName): string {
  return new Option((SETTINGS[name] as Setting).flag ?? `--${name}`).attributeName();
}

/** A setting's value: the flag wins over the config file; undefined when neither gives one. */
export function settingValue(name: SettingName, flags: SettingFlags, config: Config): unknown {
  const s: Setting = SETTINGS[name];
  const raw = s.flag === undefined ? undefined : flags[flagKey(name)];
  if (raw !== undefined) return parseFlag(s, raw);
  const [head, key] = s.config.split('.') as [string, string?];
  const top = (config as Record<string, unknown>)[head];
  return key === undefined ? top : (top as Record<string, unknown> | undefined)?.[key];
}

function parseFlag(s: Setting, raw: unknown): unknown {
  switch (s.type) {
    case 'count':
      return positiveInt(String(raw), s.flag!);
    case 'duration':
      return duration(String(raw), s.flag!);
    default:
      return raw;
  }
}

/** The config keys one command does not read: failOn is analyze's gate, retention whatif's policy. */
export type UnreadConfig = readonly ('failOn' | 'retention')[];
const UNREAD_WHY: Record<UnreadConfig[number], string> = { failOn: "analyze's gate", retention: "whatif's retention" };

/**
 * The config file named, else ./resumescope.config.json if there is one; what it sets is said on stderr,
 * and what this command does not read apart: a note "failOn error" above a watch that gates on its own
 * --fail-on told a soak pipeline its gate was on when it was not.
 */
export function loadConfig(path: string | undefined, io: Pick<Io, 'err'>, command?: { name: string; unread: UnreadConfig }): Config {
  const file = path ?? (existsSync('resumescope.config.json') ? 'resumescope.config.json' : undefined);
  if (file === undefined) return {};
  const config = readConfig(file);
  const unread = (command?.unread ?? []).filter((k) => config[k] !== undefined);
  const read = configSummary(Object.fromEntries(Object.entries(config).filter(([k]) => !unread.includes(k as UnreadConfig[number]))));
  const notes = unread.map((k) => `${configSummary({ [k]: config[k] })} (${UNREAD_WHY[k]}: not read by ${command!.name})`);
  const summary = [read, ...notes].filter((x) => x !== '').join('; ');
  if (summary !== '') io.err(`resumescope: settings from ${file}: ${summary}\n`);
  return config;
}

function readConfig(file: string): Config {
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

/**
 * Flags win over the config file, which wins over the defaults. Every threshold setting is a detect option of
 * the same name, read from the one list: a flag listed by hand here was once offered and then ignored.
 */
export function detectOptions(flags: SettingFlags, config: Config): RunOptions {
  const thresholds = Object.fromEntries(THRESHOLD_SETTINGS.map((name) => [name, settingValue(name, flags, config)])) as Pick<RunOptions, ThresholdName>;
  return { ...thresholds, disabled: (settingValue('disabledRules', flags, config) as RuleId[] | undefined) ?? [] };
}

type ThresholdName = (typeof THRESHOLD_SETTINGS)[number];

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
    const near = nearMatches(id, RULE_IDS);
    throw new UsageError(`--rule: unknown rule "${id}"${near.length ? ` (did you mean ${near.join(', ')}?)` : ''} (see resumescope rules)`);
  }
  return ids as RuleId[];
}

export function failOnOf(flags: SettingFlags, config: Config): FailOn {
  return (settingValue('failOn', flags, config) as FailOn | undefined) ?? (SETTINGS.failOn.default as FailOn);
}

export function formatOf(s: string): Format {
  if (!isFormat(s)) throw new UsageError(`--format: unknown format "${s}"`);
  return s;
}
