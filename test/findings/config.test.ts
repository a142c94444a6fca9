import { describe, expect, it } from 'vitest';
import { parseConfig, parseDuration, validateConfig } from '../../src/findings/config.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['120s', 120_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1.5s', 1_500],
    ['250', 250],
    [' 2 s ', 2_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 's', '10 parsecs', '-5s', '5d', '1e3'])('rejects %j and says what it expects', (text) => {
    expect(() => parseDuration(text)).toThrow(/expected .*ms, s, m or h/);
  });
});

describe('config', () => {
  it('accepts a full config and gives every duration in milliseconds', () => {
    const config = parseConfig(
      JSON.stringify({
        failOn: 'warning',
        rules: { disable: ['engine-divergence', '404-storm'] },
        thresholds: { stormCount: 8, stormWindowMs: '10s', duplicateCallWindowMs: '5m', fenceGraceMs: 2500 },
        retention: { maxAgeMs: '120s', maxEvents: 1000 },
        sharedSessionStore: true,
      }),
    );
    expect(config).toEqual({
      failOn: 'warning',
      rules: { disable: ['engine-divergence', '404-storm'] },
      thresholds: { stormCount: 8, stormWindowMs: 10_000, duplicateCallWindowMs: 300_000, fenceGraceMs: 2_500 },
      retention: { maxAgeMs: 120_000, maxEvents: 1000 },
      sharedSessionStore: true,
    });
  });

  it('accepts an empty object and leaves absent settings absent', () => {
    expect(validateConfig({})).toEqual({});
    expect(validateConfig({ thresholds: { fenceGraceMs: '500ms' } })).toEqual({ thresholds: { fenceGraceMs: 500 } });
  });

  it('names an unknown key, at the top and nested, with the keys it expects', () => {
    expect(() => validateConfig({ failOn: 'error', colour: true })).toThrow(/unknown key "colour".*failOn, rules, thresholds, retention/);
    expect(() => validateConfig({ thresholds: { stormcount: 5 } })).toThrow(/unknown key "thresholds\.stormcount".*stormCount/);
    expect(() => validateConfig({ rules: { enable: [] } })).toThrow(/unknown key "rules\.enable"/);
  });

  it('names the key and what it expects for a wrong value', () => {
    expect(() => validateConfig({ failOn: 'fatal' })).toThrow(/"failOn" must be one of info, warning, error, critical, never/);
    expect(() => validateConfig({ rules: { disable: ['silent-truncation', 'silent-truncaton'] } })).toThrow(/"rules\.disable\[1\]" must be a rule id/);
    expect(() => validateConfig({ thresholds: { stormCount: 2.5 } })).toThrow(/"thresholds\.stormCount" must be a positive integer/);
    expect(() => validateConfig({ thresholds: { stormWindowMs: 'soon' } })).toThrow(/"thresholds\.stormWindowMs": invalid duration "soon"/);
    expect(() => validateConfig({ retention: { maxAgeMs: true } })).toThrow(/"retention\.maxAgeMs" must be milliseconds/);
    expect(() => validateConfig([])).toThrow(/the config must be an object/);
    expect(() => validateConfig({ thresholds: 5 })).toThrow(/"thresholds" must be an object/);
    expect(() => validateConfig({ sharedSessionStore: 'yes' })).toThrow(/"sharedSessionStore" must be true or false/);
  });

  it('names the file when the text is not JSON or not valid', () => {
    expect(() => parseConfig('{ failOn: error }', 'ci/resumescope.config.json')).toThrow(/^ci\/resumescope\.config\.json: not valid JSON/);
    expect(() => parseConfig('{"fail_on":"error"}')).toThrow(/^resumescope\.config\.json: unknown key "fail_on"/);
  });
});
