import { describe, expect, it } from 'vitest';
import { colourWanted, painter } from '../../src/render/colour.js';

describe('colourWanted: colour on a terminal only, NO_COLOR and FORCE_COLOR honoured', () => {
  it.each([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { NO_COLOR: '' }, true], // an empty NO_COLOR is unset (no-color.org)
    [true, { TERM: 'dumb' }, false],
    [false, { FORCE_COLOR: '1' }, true], // piped, and asked for anyway
    [false, { FORCE_COLOR: 'true' }, true],
    [true, { FORCE_COLOR: '0' }, false],
    [true, { FORCE_COLOR: 'false' }, false],
    [false, { FORCE_COLOR: '' }, false],
    [false, { FORCE_COLOR: '1', NO_COLOR: '1' }, true], // asked outright wins, as in Node
  ] as const)('terminal %s, env %j: %s', (isTty, env, wanted) => {
    expect(colourWanted(isTty, env)).toBe(wanted);
  });

  it('paints with SGR codes only when on', () => {
    expect(painter(false)('error', 'x')).toBe('x');
    expect(painter(true)('error', 'x')).toBe('\u001b[1;31mx\u001b[0m');
  });
});
