import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/findings/config.js';
import { defaultText, SETTING_NAMES, SETTINGS, THRESHOLD_SETTINGS, WHATIF_BASELINE_SETTINGS, WHATIF_SETTINGS, type Setting, type SettingName } from '../../src/findings/settings.js';
import { DEFAULT_DETECT_OPTIONS } from '../../src/model/thresholds.js';
import { detectOptions, flagKey, settingValue } from '../../src/cli/options.js';
import { cli } from './run-cli.js';

// The settings are declared once (findings/settings.ts); the help, the flags and
// the config file all come from that table, so they cannot drift apart.

/** Which commands take which settings, as a user finds them in the help. */
const TAKEN_BY: [string, readonly SettingName[]][] = [
  ['analyze', [...THRESHOLD_SETTINGS, 'failOn']],
  ['explain', THRESHOLD_SETTINGS],
  ['query', THRESHOLD_SETTINGS],
  ['tui', THRESHOLD_SETTINGS],
  ['watch', THRESHOLD_SETTINGS],
  ['whatif', [...WHATIF_SETTINGS, ...WHATIF_BASELINE_SETTINGS]],
];

/** One value of each type, as a config file and as a flag write it, and what both mean. */
const SAMPLE: Record<Setting['type'], { config: unknown; flag?: unknown; value: unknown }> = {
  count: { config: 7, flag: '7', value: 7 },
  duration: { config: '7s', flag: '7s', value: 7000 },
  boolean: { config: true, flag: true, value: true },
  'fail-on': { config: 'warning', flag: 'warning', value: 'warning' },
  'rule-list': { config: ['404-storm'], value: ['404-storm'] },
};

const flat = (s: string) => s.replace(/\s+/g, ' ');

describe('the settings table', () => {
  it.each(TAKEN_BY)('%s --help shows each of its settings with its default and config key', async (command, names) => {
    const r = await cli(command, '--help');
    const help = flat(r.out + r.err);
    for (const name of names) {
      const s: Setting = SETTINGS[name];
      expect(help).toContain(`${s.flag}${s.argument ? ` ${s.argument}` : ''} `);
      expect(help).toContain(`(default: ${defaultText(s)}; config: ${s.config})`);
    }
  });

  it('shows the thresholds\' defaults as DEFAULT_DETECT_OPTIONS has them', async () => {
    const help = flat((await cli('analyze', '--help')).out);
    expect(help).toMatch(/--storm-count <n> .*\(default: 5; config: thresholds\.stormCount\)/);
    expect(help).toMatch(/--fence-grace <duration> .*\(default: 5s; config: thresholds\.fenceGraceMs\)/);
    for (const name of THRESHOLD_SETTINGS) expect(SETTINGS[name].default).toBe(DEFAULT_DETECT_OPTIONS[name]);
  });

  it.each(SETTING_NAMES)('%s round-trips through the config file, and its flag means the same', (name) => {
    const s: Setting = SETTINGS[name];
    const sample = SAMPLE[s.type];
    const [head, key] = s.config.split('.') as [string, string?];
    const text = JSON.stringify(key === undefined ? { [head]: sample.config } : { [head]: { [key]: sample.config } });
    const config = parseConfig(text);
    expect(settingValue(name, {}, config)).toEqual(sample.value);
    if (s.flag !== undefined) {
      expect(settingValue(name, { [flagKey(name)]: sample.flag }, {})).toEqual(sample.value);
      // The flag wins over the config file.
      const other = s.type === 'boolean' ? false : s.type === 'fail-on' ? 'critical' : s.type === 'count' ? '9' : '9s';
      const expected = s.type === 'duration' ? 9000 : s.type === 'count' ? 9 : other;
      expect(settingValue(name, { [flagKey(name)]: other }, config)).toEqual(expected);
    }
    // A key beside it is refused, and the message lists the declared one.
    const wrong = key === undefined ? { [`${head}X`]: sample.config } : { [head]: { [`${key}X`]: sample.config } };
    expect(() => parseConfig(JSON.stringify(wrong))).toThrow(new RegExp(`unknown key .*expected one of .*${key ?? head}`));
  });

  // The README's table is what a user reads before --help: it had no row for --stranding-window.
  it('is what the README\'s settings table lists, row for row', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('| flag | config key | type | default | meaning |')).split('\n\n')[0]!;
    const rows = table.split('\n').slice(2).map((row) => row.split(' | ').slice(0, 4).map((cell) => cell.replace(/^\| /, '')));
    expect(rows).toEqual(
      SETTING_NAMES.map((name) => {
        const s: Setting = SETTINGS[name];
        return [s.flag === undefined ? '—' : `\`${s.flag}${s.argument ? ` ${s.argument}` : ''}\``, `\`${s.config}\``, s.type, defaultText(s)];
      }),
    );
  });

  // --stranding-window was offered, read and then dropped: detectOptions listed the thresholds by hand.
  it.each(THRESHOLD_SETTINGS)('hands %s to the detectors, from its flag and from the config file', (name) => {
    const s: Setting = SETTINGS[name];
    const sample = SAMPLE[s.type];
    const [head, key] = s.config.split('.') as [string, string?];
    const config = parseConfig(JSON.stringify(key === undefined ? { [head]: sample.config } : { [head]: { [key]: sample.config } }));
    expect(detectOptions({}, config)[name]).toEqual(sample.value);
    expect(detectOptions({ [flagKey(name)]: sample.flag }, {})[name]).toEqual(sample.value);
    expect(detectOptions({}, {})[name]).toBeUndefined();
  });

  it('hands every threshold to the detectors, from flags or from the config file', () => {
    const config = parseConfig(JSON.stringify({ thresholds: { stormCount: 8, stormWindowMs: 2000, duplicateCallWindowMs: '3s', fenceGraceMs: '4s' }, sharedSessionStore: true, rules: { disable: ['dual-writer'] } }));
    expect(detectOptions({}, config)).toEqual({ stormCount: 8, stormWindowMs: 2000, duplicateCallWindowMs: 3000, fenceGraceMs: 4000, sharedSessionStore: true, disabled: ['dual-writer'] });
    expect(detectOptions({ stormCount: '6', stormWindow: '1s', dupWindow: '2m', fenceGrace: '250ms', sharedSessionStore: true }, {})).toEqual({
      stormCount: 6, stormWindowMs: 1000, duplicateCallWindowMs: 120_000, fenceGraceMs: 250, sharedSessionStore: true, disabled: [],
    });
  });
});
