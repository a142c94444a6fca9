import { stripVTControlCharacters } from 'node:util';

/** The visible lines of a frame: styling stripped, as a person reads the terminal. */
export function frameLines(frame: string | undefined): string[] {
  return stripVTControlCharacters(frame ?? '').split('\n');
}

export function plain(frame: string | undefined): string {
  return frameLines(frame).join('\n');
}

/** Terminal cells of a line of plain text (every glyph the dashboard draws is one cell wide). */
export function cells(line: string): number {
  return [...line].length;
}

export const KEY = {
  tab: '\t',
  shiftTab: '\u001B[Z',
  enter: '\r',
  escape: '\u001B',
  up: '\u001B[A',
  down: '\u001B[B',
  backspace: '\u007F',
} as const;

/** Polls until `check` passes or `timeoutMs` elapses (then throws its last error). Every wait is bounded. */
export async function waitFor(check: () => void, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
