import type { Severity } from '../model/severity.js';

// Colour, decided in one place: whether to paint (a terminal, NO_COLOR,
// FORCE_COLOR) and how each kind of text is painted (SGR codes).

/**
 * Whether output to this stream is painted. FORCE_COLOR, when set and not
 * empty, decides first (0 or false: never; anything else: always, even
 * piped): it is the user asking outright. Then NO_COLOR (any non-empty value)
 * and TERM=dumb turn colour off; otherwise only a terminal gets colour.
 */
export function colourWanted(isTty: boolean, env: Record<string, string | undefined>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTty;
}

/** The kinds of text a report paints. */
export type Tone = Severity | 'strong' | 'faint';

const SGR: Record<Tone, string> = { critical: '1;35', error: '1;31', warning: '1;33', info: '1;36', strong: '1', faint: '2' };

export type Paint = (tone: Tone, s: string) => string;

/** A painter: the identity when colour is off, so a report reads the same without it. */
export function painter(on: boolean | undefined): Paint {
  return on ? (tone, s) => `\u001b[${SGR[tone]}m${s}\u001b[0m` : (_tone, s) => s;
}
