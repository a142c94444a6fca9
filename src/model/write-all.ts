import { writeSync } from 'node:fs';

// Shared by the writers of two stages, the reader's spool of stdin and .gz (read/spool.ts) and analyze's
// report file (cli/commands/analyze.ts): model/ is the one stage both import.

/**
 * Writes all of `data` to `fd`. writeSync may write part of what it is given (a disk that fills mid-chunk)
 * and say so only in its count: a report or a spool cut short then looked whole. The next write throws.
 */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}
