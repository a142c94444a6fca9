import { closeSync, createReadStream, openSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileSource, isGzipFile, type Source } from './sources.js';
import { writeAll } from '../model/write-all.js';

// stdin and gzip files have no bytes a line can be read back from at its
// offset: a one-off run would have to copy every line into its database to
// quote evidence (half the records table), and stdin, having no path, could
// not go to the normalizing worker either. Copied once, decompressed, into the
// run's private folder, as lnav spools stdin, they read as plain files.

/** An input with no bytes to go back to: stdin, or a gzip file. */
export function needsSpool(source: Source): boolean {
  return source.path === null || isGzipFile(source.path);
}

/**
 * Copies a source's (decompressed) bytes to a new file at `path` and returns it as a plain file under
 * the source's own name. Lines read so far are told to `onLines` as they arrive: stdin comes at its
 * writer's pace. A source that fails part way (a truncated gzip) keeps what was read and its error:
 * it comes back with no path, reading the spooled bytes and then failing as the original did.
 */
export async function spool(source: Source, path: string, onLines?: (source: string, lines: number) => void): Promise<Source> {
  const fd = openSync(path, 'wx', 0o600);
  let lines = 0;
  let failure: Error | undefined;
  try {
    for await (const chunk of source.open() as AsyncIterable<Buffer>) {
      writeChunk(fd, chunk, source.name, path);
      lines += countNewlines(chunk);
      onLines?.(source.name, lines);
    }
  } catch (err) {
    if (err instanceof SpoolWriteError) throw err; // the spool's disk, not the input: the run stops
    failure = err as Error;
  } finally {
    closeSync(fd);
  }
  if (failure === undefined) return { ...fileSource(path), name: source.name };
  const why = failure;
  return { name: source.name, path: null, open: () => failingAfter(path, why) };
}

/** The spool could not be written (a full TMPDIR): the run's failure, never the input's. */
class SpoolWriteError extends Error {}

function writeChunk(fd: number, chunk: Buffer, name: string, path: string): void {
  try {
    writeAll(fd, chunk);
  } catch (err) {
    const hint = (err as NodeJS.ErrnoException).code === 'ENOSPC' ? '; free space there, or set TMPDIR to a disk with room' : '';
    throw new SpoolWriteError(`cannot write the spool of ${name} (${path}): ${(err as Error).message}${hint}`);
  }
}

function countNewlines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** The spooled bytes, then the source's error once the reader has taken them all (destroy drops what is buffered). */
function failingAfter(path: string, err: Error): PassThrough {
  const out = new PassThrough();
  const read = createReadStream(path);
  const fail = (): void => {
    if (out.readableLength + out.writableLength === 0) out.destroy(err);
    else setImmediate(fail);
  };
  read.once('error', (e) => out.destroy(e));
  read.once('end', fail);
  read.pipe(out, { end: false });
  return out;
}
