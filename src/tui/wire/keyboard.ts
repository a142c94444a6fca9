import { openSync } from 'node:fs';
import { ReadStream } from 'node:tty';

// What a command asks before it draws the dashboard, kept apart from ink and react (terminal.ts):
// the commands load those only to draw, so that `--version` or `analyze` do not open the hundreds
// of files ink's dependencies are (under `ulimit -n 256` every command failed to start).

/**
 * Why this terminal cannot show the dashboard, or undefined when it can. The dashboard moves the
 * cursor and draws on the alternate screen; TERM=dumb says the terminal does neither (Emacs' shell,
 * some CI log viewers), so the escapes would be shown as garbage.
 */
export function cannotDrawDashboard(env: Record<string, string | undefined>): string | undefined {
  return env.TERM === 'dumb' ? 'TERM=dumb: the dashboard needs a terminal that can move the cursor' : undefined;
}

export interface Keyboard {
  stream: NodeJS.ReadStream;
  close(): void;
}

/**
 * Where keys come from: stdin when it is the terminal; the terminal itself
 * (/dev/tty) when stdin carries the log being watched; none without a terminal.
 */
export function openKeyboard(stdinCarriesLog: boolean): Keyboard | undefined {
  if (!stdinCarriesLog && process.stdin.isTTY) return { stream: process.stdin, close: () => process.stdin.pause() };
  try {
    const tty = new ReadStream(openSync('/dev/tty', 'r'));
    return { stream: tty as NodeJS.ReadStream, close: () => tty.destroy() };
  } catch {
    return undefined;
  }
}

