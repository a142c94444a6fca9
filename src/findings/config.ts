import { isRuleId, type RuleId } from '../detect/rules/index.js';
import { SEVERITIES, type FailOn } from '../model/severity.js';
import { SETTINGS, SETTING_NAMES, type Setting } from './settings.js';

/** `resumescope.config.json`, validated; every duration is in milliseconds. Its keys are SETTINGS' `config`. */
export interface Config {
  failOn?: FailOn;
  rules?: { disable?: RuleId[] };
  thresholds?: {
    stormCount?: number;
    stormWindowMs?: number;
    duplicateCallWindowMs?: number;
    fenceGraceMs?: number;
  };
  retention?: { maxAgeMs?: number; maxEvents?: number };
  /** The server's nodes share one session store (see DetectOptions.sharedSessionStore). */
  sharedSessionStore?: boolean;
}

/**
 * What a config file sets, as `key value` pairs ("failOn never; rules.disable dual-writer"): a run that a
 * file in the working directory changed (rules disabled, a gate lowered) says so, as a baseline does.
 */
export function configSummary(c: Config): string {
  const parts: string[] = [];
  const add = (key: string, v: unknown) => {
    if (v === undefined) return;
    if (Array.isArray(v)) parts.push(`${key} ${v.length === 0 ? '(none)' : v.join(', ')}`);
    else if (typeof v === 'object' && v !== null) for (const [k, w] of Object.entries(v)) add(`${key}.${k}`, w);
    else parts.push(`${key} ${String(v)}`);
  };
  for (const [k, v] of Object.entries(c)) add(k, v);
  return parts.join('; ');
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const FAIL_ON: readonly string[] = [...SEVERITIES, 'never'];

/**
 * A duration in a config file: "500ms", "10s", "1.5s", "5m", "1h", or bare digits meaning
 * milliseconds (its keys end in Ms). A flag takes a unit always (cli/options.ts).
 */
export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(s.trim());
  if (!m) {
    throw new Error(`invalid duration "${s}": expected milliseconds or a number with a unit ms, s, m or h (e.g. "500ms", "10s", "5m")`);
  }
  return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!);
}

/** Parses the text of a config file; errors name the file, the key and what it expects. */
export function parseConfig(text: string, source = 'resumescope.config.json'): Config {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not valid JSON (${(err as Error).message})`);
  }
  try {
    return validateConfig(value);
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message}`);
  }
}

/** Top-level keys, and the keys of each section, in SETTINGS' order. */
function configLayout(): Map<string, string[]> {
  const layout = new Map<string, string[]>([['', []]]);
  for (const name of SETTING_NAMES) {
    const [head, key] = SETTINGS[name].config.split('.') as [string, string?];
    if (!layout.get('')!.includes(head)) layout.get('')!.push(head);
    if (key !== undefined) layout.set(head, [...(layout.get(head) ?? []), key]);
  }
  return layout;
}

export function validateConfig(value: unknown): Config {
  const layout = configLayout();
  const top = objectAt(value, 'the config', layout.get('')!);
  const sections = new Map<string, Record<string, unknown>>();
  for (const [section, keys] of layout) {
    if (section !== '' && top[section] !== undefined) sections.set(section, objectAt(top[section], section, keys));
  }
  const config: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const setting: Setting = SETTINGS[name];
    const [head, key] = setting.config.split('.') as [string, string?];
    if (key === undefined) {
      const v = readValue(setting, top[head]);
      if (v !== undefined) config[head] = v;
    } else if (sections.has(head)) {
      const v = readValue(setting, sections.get(head)![key]);
      config[head] ??= {};
      if (v !== undefined) (config[head] as Record<string, unknown>)[key] = v;
    }
  }
  return config as Config;
}

/** One config value, checked against its setting's type; undefined when absent. */
function readValue(s: Setting, value: unknown): unknown {
  if (value === undefined) return undefined;
  const path = s.config;
  switch (s.type) {
    case 'count':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`"${path}" must be a positive integer, got ${JSON.stringify(value)}`);
      return value;
    case 'duration':
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
      if (typeof value === 'string') {
        try {
          return parseDuration(value);
        } catch (err) {
          throw new Error(`"${path}": ${(err as Error).message}`);
        }
      }
      throw new Error(`"${path}" must be milliseconds (a number) or a duration such as "10s", got ${JSON.stringify(value)}`);
    case 'boolean':
      if (typeof value !== 'boolean') throw new Error(`"${path}" must be true or false, got ${JSON.stringify(value)}`);
      return value;
    case 'fail-on':
      if (typeof value !== 'string' || !FAIL_ON.includes(value)) throw new Error(`"${path}" must be one of ${FAIL_ON.join(', ')}, got ${JSON.stringify(value)}`);
      return value;
    case 'rule-list':
      if (!Array.isArray(value)) throw new Error(`"${path}" must be an array of rule ids`);
      return value.map((id: unknown, i) => {
        if (typeof id !== 'string' || !isRuleId(id)) throw new Error(`"${path}[${i}]" must be a rule id (see docs/rules.md), got ${JSON.stringify(id)}`);
        return id;
      });
  }
}

function objectAt(value: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${path === 'the config' ? path : `"${path}"`} must be an object`);
  }
  const prefix = path === 'the config' ? '' : `${path}.`;
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new Error(`unknown key "${prefix}${key}": expected one of ${allowed.join(', ')}`);
    }
  }
  return value as Record<string, unknown>;
}
