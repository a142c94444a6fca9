import { describe, expect, it } from 'vitest';
import { cannotDrawDashboard } from '../../src/tui/wire/terminal.js';

// Terminal review 57: on TERM=dumb the dashboard still sent cursor addressing and the alternate
// screen. `tui` refuses it there, and `watch` writes NDJSON instead, each saying why.

describe('a terminal that cannot draw the dashboard', () => {
  it('is TERM=dumb, and the reason says so', () => {
    expect(cannotDrawDashboard({ TERM: 'dumb' })).toMatch(/TERM=dumb/);
  });

  it('is not any other terminal, nor one that names none (near misses)', () => {
    for (const TERM of ['xterm-256color', 'screen', 'linux', 'vt100', 'dumb-ish', undefined]) expect(cannotDrawDashboard({ TERM })).toBeUndefined();
  });
});
