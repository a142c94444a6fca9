import { createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { fileSource, type Source } from '../../src/read/sources.js';
import { openDb } from '../../src/store/db.js';
import { ingestSource } from '../../src/pipeline/ingest.js';
import { T0_MS, tempDir, track } from './support.js';

// A large export streams through with flat memory: the reader holds one line,
// the store one run of equal timestamps. Measured as live heap (after a
// forced GC) while the file is being read; no timing is asserted.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const LINES = 200_000;

function line(i: number): string {
  // Four lines per millisecond: realistic ties, every kind of line.
  const ts = T0_MS + Math.floor(i / 4);
  const session = `S${i % 97}`;
  switch (i % 10) {
    case 0:
      return JSON.stringify({ ts, kind: 'stream.opened', session, stream: `g${i}`, via: 'get', node: 'n1', seq: i });
    case 7:
      return JSON.stringify({ level: 30, time: ts, msg: 'GET /health 200', pid: 12 });
    case 8:
      return `{"ts":${ts},"kind":"event.sent",`;
    case 9:
      return JSON.stringify({ ts, kind: 'upgrade', session, last_event_id: i - 3, stream: `g${i - 9}`, new_stream: `g${i}`, decision: 'resume', status: 200, replayed: 2 });
    default:
      return JSON.stringify({ ts, kind: 'event.sent', session, stream: `g${i - (i % 10)}`, event_id: i, rpc_kind: 'notification', method: 'notifications/progress', node: 'n1', seq: i });
  }
}

async function writeExport(path: string): Promise<number> {
  const out = createWriteStream(path);
  let batch: string[] = [];
  for (let i = 0; i < LINES; i++) {
    batch.push(line(i));
    if (batch.length === 5000) {
      if (!out.write(batch.join('\n') + '\n')) await once(out, 'drain');
      batch = [];
    }
  }
  out.end(batch.join('\n') + (batch.length ? '\n' : ''));
  await once(out, 'finish');
  return statSync(path).size;
}

/** The source, sampling the live heap every `every` bytes as they are read. */
function sampled(source: Source, every: number, samples: number[]): Source {
  return {
    ...source,
    open: () => {
      let seen = 0;
      const probe = new Transform({
        transform(chunk: Buffer, _enc, done) {
          seen += chunk.length;
          if (seen >= every) {
            seen = 0;
            gc();
            samples.push(process.memoryUsage().heapUsed);
          }
          done(null, chunk);
        },
      });
      return source.open().pipe(probe);
    },
  };
}

describe('memory', () => {
  it(`ingesting ${LINES} lines keeps the live heap far below the size of the data`, { timeout: 180_000 }, async () => {
    const path = join(tempDir(), 'big.ndjson');
    const bytes = await writeExport(path);
    const db = track(openDb(':memory:'));

    gc();
    const baseline = process.memoryUsage().heapUsed;
    const samples: number[] = [];
    const stats = await ingestSource(db, sampled(fileSource(path), 1 << 20, samples));

    expect(stats).toMatchObject({ lines: LINES, recordLines: LINES * 0.8, ignored: LINES * 0.1, rejected: LINES * 0.1 });
    expect(samples.length).toBeGreaterThan(10);
    const growth = Math.max(...samples) - baseline;
    // Holding the lines would cost several times their bytes in heap; a
    // streaming ingest needs a few MiB whatever the size of the file.
    expect(growth).toBeLessThan(bytes / 5);
  });
});
