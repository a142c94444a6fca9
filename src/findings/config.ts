import { isRuleId, type RuleId } from '../detect/rules/index.js';
import { SEVERITIES, type FailOn } from '../model/severity.js';

/** `resumescope.config.json`, validated; every duration is in milliseconds. */
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

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const FAIL_ON: readonly string[] = [...SEVERITIES, 'never'];

/** "500ms", "10s", "1.5s", "5m", "1h", or bare digits meaning milliseconds. */
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

export function validateConfig(value: unknown): Config {
  const top = objectAt(value, 'the config', ['failOn', 'rules', 'thresholds', 'retention', 'sharedSessionStore']);
  const config: Config = {};
  if (top.failOn !== undefined) {
    if (typeof top.failOn !== 'string' || !FAIL_ON.includes(top.failOn)) {
      throw new Error(`"failOn" must be one of ${FAIL_ON.join(', ')}, got ${JSON.stringify(top.failOn)}`);
    }
    config.failOn = top.failOn as FailOn;
  }
  if (top.rules !== undefined) {
    const rules = objectAt(top.rules, 'rules', ['disable']);
    config.rules = {};
    if (rules.disable !== undefined) config.rules.disable = ruleList(rules.disable, 'rules.disable');
  }
  if (top.thresholds !== undefined) {
    const t = objectAt(top.thresholds, 'thresholds', ['stormCount', 'stormWindowMs', 'duplicateCallWindowMs', 'fenceGraceMs']);
    config.thresholds = dropUndefined({
      stormCount: count(t.stormCount, 'thresholds.stormCount'),
      stormWindowMs: duration(t.stormWindowMs, 'thresholds.stormWindowMs'),
      duplicateCallWindowMs: duration(t.duplicateCallWindowMs, 'thresholds.duplicateCallWindowMs'),
      fenceGraceMs: duration(t.fenceGraceMs, 'thresholds.fenceGraceMs'),
    });
  }
  if (top.sharedSessionStore !== undefined) {
    if (typeof top.sharedSessionStore !== 'boolean') throw new Error(`"sharedSessionStore" must be true or false, got ${JSON.stringify(top.sharedSessionStore)}`);
    config.sharedSessionStore = top.sharedSessionStore;
  }
  if (top.retention !== undefined) {
    const r = objectAt(top.retention, 'retention', ['maxAgeMs', 'maxEvents']);
    config.retention = dropUndefined({
      maxAgeMs: duration(r.maxAgeMs, 'retention.maxAgeMs'),
      maxEvents: count(r.maxEvents, 'retention.maxEvents'),
    });
  }
  return config;
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

function ruleList(value: unknown, path: string): RuleId[] {
  if (!Array.isArray(value)) throw new Error(`"${path}" must be an array of rule ids`);
  return value.map((id: unknown, i) => {
    if (typeof id !== 'string' || !isRuleId(id)) {
      throw new Error(`"${path}[${i}]" must be a rule id (see docs/rules.md), got ${JSON.stringify(id)}`);
    }
    return id;
  });
}

function count(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new Error(`"${path}" must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function duration(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string') {
    try {
      return parseDuration(value);
    } catch (err) {
      throw new Error(`"${path}": ${(err as Error).message}`);
    }
  }
  throw new Error(`"${path}" must be milliseconds (a number) or a duration such as "10s", got ${JSON.stringify(value)}`);
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
