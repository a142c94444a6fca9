import { createHash } from 'node:crypto';
import type { FollowEvent } from './follow.js';
import { splitLineBatches, type Splitting } from './entries.js';
import { fileSource } from './sources.js';

/**
 * Files that no longer grow, read from start to end and told as follow() tells a file: its lines, then
 * its end. `watch` reads a followed folder's rotated generations so before following its live files:
 * they hold the start of the same logs (the sessions the live file's lines go on with), which a
 * follower alone would never see. A file that cannot be read, or not to its end (a gzip file cut
 * short), is told to `onError`, what was read of it kept.
 */
export async function* readThrough(
  paths: string[],
  opts: { signal: AbortSignal; onError: (path: string, message: string) => void } & Splitting,
): AsyncGenerator<FollowEvent> {
  for (const path of paths) {
    if (opts.signal.aborted) return;
    // Hashed as ingest hashes a file (its decompressed bytes): ingesting it into the same --db later adds nothing.
    const hash = createHash('sha256');
    let whole = true;
    try {
      for await (const lines of splitLineBatches(fileSource(path).open(), (chunk) => hash.update(chunk), opts)) {
        yield { type: 'lines', source: path, lines };
        if (opts.signal.aborted) return;
      }
    } catch (err) {
      whole = false;
      opts.onError(path, (err as Error).message);
    }
    yield { type: 'end', source: path, why: 'eof', ...(whole && { sha256: hash.digest('hex') }) };
  }
}
