import { readFileSync } from 'node:fs';
import { colourWanted } from '../render/colour.js';

/** Process concerns kept in one place: output streams, colour, the package version. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTty: boolean;
  /** Where a progress line may be drawn (stderr); shown only where it is a terminal. */
  errStream?: { isTTY?: boolean; write(s: string): unknown };
}

// A reader that goes away (`analyze … | head`) is not an error of ours: stop
// writing and finish quietly with the exit code the run had.
let stdoutClosed = false;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  stdoutClosed = true;
});

export const processIo: Io = {
  out: (s) => {
    if (!stdoutClosed) process.stdout.write(s);
  },
  err: (s) => void process.stderr.write(s),
  isTty: Boolean(process.stdout.isTTY),
  errStream: process.stderr,
};

/** Colour for this process's stdout: render/colour.ts decides from the terminal and NO_COLOR / FORCE_COLOR. */
export function useColor(io: Io): boolean {
  return colourWanted(io.isTty, process.env);
}

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** A command-line mistake: exit 2 with the message, no stack. */
export class UsageError extends Error {}
