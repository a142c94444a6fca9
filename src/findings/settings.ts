import { DEFAULT_DETECT_OPTIONS } from '../model/thresholds.js';

// Every setting a run takes from the command line or resumescope.config.json,
// declared once: its flag, its config key, what it holds, its default and its
// help. The config reader validates from this table, and the CLI builds its
// options and their help (default shown) from it.

/** What a setting holds, which decides how a flag or a config value is read. */
export type SettingType =
  /** A whole number of at least 1. */
  | 'count'
  /** Milliseconds: a config number, a config string such as "10s", a flag with a unit. */
  | 'duration'
  /** A switch: the flag takes no value; the config holds true or false. */
  | 'boolean'
  /** A severity or `never`: the lowest severity that fails the run. */
  | 'fail-on'
  /** Rule ids (config only). */
  | 'rule-list';

export interface Setting {
  /** The command-line flag, e.g. `--storm-count`; none for a key that only the config file sets. */
  flag?: string;
  /** The flag's value in the help, e.g. `<n>`. */
  argument?: string;
  /** The key in resumescope.config.json: `key` or `section.key`. */
  config: string;
  type: SettingType;
  /** The value used when neither a flag nor the config gives one; shown in the help. */
  default: number | boolean | string | readonly string[] | undefined;
  /** The default in words, where the value alone would not say it (e.g. "as logged"). */
  defaultText?: string;
  help: string;
  /** whatif's question for the settings it can vary ("what if …"). */
  whatIf?: string;
}

/** In the order a config file lists its keys (and its errors list what is allowed). */
export const SETTINGS = {
  failOn: {
    flag: '--fail-on',
    argument: '<severity>',
    config: 'failOn',
    type: 'fail-on',
    default: 'error',
    help: 'exit 1 when a finding is at or above this severity, or never',
  },
  disabledRules: {
    config: 'rules.disable',
    type: 'rule-list',
    default: [],
    defaultText: 'none',
    help: 'rules not run at all',
  },
  stormCount: {
    flag: '--storm-count',
    argument: '<n>',
    config: 'thresholds.stormCount',
    type: 'count',
    default: DEFAULT_DETECT_OPTIONS.stormCount,
    help: '404-storm: POSTs that make a storm',
    whatIf: 'what if this many 404 POSTs made a storm',
  },
  stormWindowMs: {
    flag: '--storm-window',
    argument: '<duration>',
    config: 'thresholds.stormWindowMs',
    type: 'duration',
    default: DEFAULT_DETECT_OPTIONS.stormWindowMs,
    help: '404-storm: the window they fall within, e.g. 10s',
    whatIf: 'what if a storm were counted within this window, e.g. 10s',
  },
  duplicateCallWindowMs: {
    flag: '--dup-window',
    argument: '<duration>',
    config: 'thresholds.duplicateCallWindowMs',
    type: 'duration',
    default: DEFAULT_DETECT_OPTIONS.duplicateCallWindowMs,
    help: 'duplicate-tool-call: window, e.g. 60s',
    whatIf: 'what if a retried tool call counted as a duplicate within this window, e.g. 60s',
  },
  fenceGraceMs: {
    flag: '--fence-grace',
    argument: '<duration>',
    config: 'thresholds.fenceGraceMs',
    type: 'duration',
    default: DEFAULT_DETECT_OPTIONS.fenceGraceMs,
    help: 'stale-writer-blocks-reconnect: fence grace period, e.g. 5s',
    whatIf: 'what if a stale writer had this long to be fenced, e.g. 5s',
  },
  strandingWindowMs: {
    flag: '--stranding-window',
    argument: '<duration>',
    config: 'thresholds.strandingWindowMs',
    type: 'duration',
    default: DEFAULT_DETECT_OPTIONS.strandingWindowMs,
    help: 'stranded-response: how long a stored response may wait for a resumption, e.g. 60s',
    whatIf: 'what if a stored response could wait this long for a resumption, e.g. 60s',
  },
  orphanWindowMs: {
    flag: '--orphan-window',
    argument: '<duration>',
    config: 'thresholds.orphanWindowMs',
    type: 'duration',
    default: DEFAULT_DETECT_OPTIONS.orphanWindowMs,
    help: "orphaned-request: a request still pending when the log ends less than this long after it was stranded is not knowable, e.g. 30s for a soak log cut while clients reconnect (0: rules.md's letter)",
  },
  retentionMaxAgeMs: {
    flag: '--retention',
    argument: '<duration>',
    config: 'retention.maxAgeMs',
    type: 'duration',
    default: undefined,
    defaultText: 'as logged',
    help: 'events stay replayable this long after they were sent',
    whatIf: 'what if events stayed replayable this long after they were sent, e.g. 120s',
  },
  retentionMaxEvents: {
    flag: '--retention-events',
    argument: '<n>',
    config: 'retention.maxEvents',
    type: 'count',
    default: undefined,
    defaultText: 'as logged',
    help: 'a stream keeps only its last N events replayable',
    whatIf: 'what if a stream kept only its last N events replayable',
  },
  sharedSessionStore: {
    flag: '--shared-session-store',
    config: 'sharedSessionStore',
    type: 'boolean',
    default: DEFAULT_DETECT_OPTIONS.sharedSessionStore,
    help: 'the server nodes share one session store: a session created on one node is known to all',
  },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** The settings that analyze, explain, query, tui and watch judge with. */
export const THRESHOLD_SETTINGS = ['stormCount', 'stormWindowMs', 'duplicateCallWindowMs', 'fenceGraceMs', 'strandingWindowMs', 'orphanWindowMs', 'sharedSessionStore'] as const satisfies readonly SettingName[];

/** The settings whatif can vary (its flags ask "what if …"). */
export const WHATIF_SETTINGS = ['retentionMaxAgeMs', 'retentionMaxEvents', 'fenceGraceMs', 'stormCount', 'stormWindowMs', 'duplicateCallWindowMs'] as const satisfies readonly SettingName[];

/**
 * The settings whatif takes as the world as logged, in both worlds alike (as analyze takes them), so
 * that its "before" is analyze's: not questions, since they are no server policy a change could ask about.
 */
export const WHATIF_BASELINE_SETTINGS = ['orphanWindowMs', 'sharedSessionStore'] as const satisfies readonly SettingName[];

/** 10000 → "10s", 500 → "500ms": how a duration is written in the help and accepted back. */
function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The default as the help shows it, in the form a flag accepts. */
export function defaultText(s: Setting): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.type === 'duration' && typeof s.default === 'number') return formatDuration(s.default);
  return String(s.default);
}
