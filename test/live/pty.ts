import { execFileSync } from 'node:child_process';
import { BIN, run, type Running } from './cli.js';

// The dashboard on a pseudo-terminal: util-linux `script` runs the binary with a pty on stdin and stdout
// and copies the screen to its stdout; what a test writes to script's stdin arrives as keys.

/** Whether every named command is on the PATH (the pty tests skip without them). */
export function haveCommands(...names: string[]): boolean {
  try {
    for (const name of names) execFileSync('which', [name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a resumescope command line on a 120×40 pty. Ink draws only the last frame when it
 * believes it runs in CI (CI=true), which is the test machine's setting, not the user's
 * terminal's: the child is told it is not in CI.
 */
export function onPty(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return run('script', ['-qfec', `stty cols 120 rows 40; exec ${quoted}`, '/dev/null'], {
    env: { TERM: 'xterm-256color', CI: 'false', CONTINUOUS_INTEGRATION: 'false', ...env },
  });
}

/** The screen output with escape sequences taken out, so words can be searched for. */
export const plain = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
