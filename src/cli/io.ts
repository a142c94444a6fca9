import { colourWanted } from '../render/colour.js';

/** Process concerns kept in one place: output streams, colour. */
export interface Io {
  /** False when the output holds the text but wants draining first (a pipe whose reader is slower). */
  out: (s: string) => boolean | void;
  /** Resolves once the output has taken what it held (stdout's 'drain'); absent: it never holds back. */
  drained?: () => Promise<void>;
  err: (s: string) => void;
  isTty: boolean;
  /** Where a progress line may be drawn (stderr); shown only where it is a terminal. */
  errStream?: { isTTY?: boolean; write(s: string): unknown };
  /** True once the output could not take what was written (a full disk): the run exits 2, whatever it found. */
  failed?: () => boolean;
}

// A reader that goes away (`analyze … | head`) is not an error of ours: stop
// writing and finish quietly with the exit code the run had. Any other write
// error (a full disk, an I/O error) is: the report is lost, so the run can
// neither pass nor fail a gate on it. It is said in one line, as for `-o FILE`,
// and the exit status is 2. The error comes after the write that failed (on the
// next tick), so it may come after the command has returned its code: the exit
// code is set here too, past whatever the command set.
let stdoutClosed = false;
let stdoutFailed = false;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  stdoutClosed = true;
  if (err.code === 'EPIPE' || stdoutFailed) return;
  stdoutFailed = true;
  process.stderr.write(`resumescope: cannot write the report to standard output: ${err.message}\n`);
  process.exitCode = 2;
});

export const processIo: Io = {
  out: (s) => (stdoutClosed ? true : process.stdout.write(s)),
  drained: () =>
    new Promise<void>((resolve) => {
      if (stdoutClosed || !process.stdout.writableNeedDrain) return resolve();
      const done = () => {
        for (const event of ['drain', 'error', 'close']) process.stdout.off(event, done);
        resolve();
      };
      for (const event of ['drain', 'error', 'close']) process.stdout.once(event, done);
    }),
  err: (s) => void process.stderr.write(s),
  isTty: Boolean(process.stdout.isTTY),
  errStream: process.stderr,
  failed: () => stdoutFailed,
};

/**
 * Writes each piece to stdout as the reader takes it. Written without waiting, a report piped to a
 * slower reader (`| jq`, `| less`) was held whole in memory by the stream: 44 MB more for a 30 MB report.
 */
export async function writeOut(io: Io, pieces: Iterable<string>): Promise<void> {
  for (const piece of pieces) if (io.out(piece) === false) await io.drained?.();
}

/** Colour for this process's stdout: render/colour.ts decides from the terminal and NO_COLOR / FORCE_COLOR. */
export function useColor(io: Io): boolean {
  return colourWanted(io.isTty, process.env);
}

/** A command-line mistake: exit 2 with the message, no stack. */
export class UsageError extends Error {}
