import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { detect } from '../../src/pipeline/derived.js';
import { DEFAULT_SETTLE_MS } from '../../src/live/finding-book.js';
import { LiveSession } from '../../src/live/session.js';
import type { Finding } from '../../src/model/finding.js';
import { SourceIngest } from '../../src/pipeline/ingest.js';
import { openDb } from '../../src/store/db.js';
import { tempDir } from './support.js';

// `watch` tailing several nodes' files ends with the findings `analyze` makes of the same files read
// whole, though the files arrive at different paces: one node's lines come in batches three times the
// size of another's, so a session's records, and the other sessions its verdict reads, arrive in any
// order. Generated logs with faults of every rule family, and the fuzz shape's mutations (ids from other
// sessions, times out of order), split by the node each line names.

const dir = tempDir();
afterAll(() => dir.remove());

interface NodeFile {
  name: string;
  lines: { line: number; text: string }[];
}

/** The log's lines split by the node each names (whatever its dialect calls the field), into `parts` files. */
function splitByNode(path: string, parts: number): NodeFile[] {
  const files: NodeFile[] = Array.from({ length: parts }, (_, i) => ({ name: `node-${i}.ndjson`, lines: [] }));
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (text === '') continue;
    const node = /"(?:node|instance|hostname|host\.name)":"([^"]+)"/.exec(text)?.[1] ?? '';
    let h = 0;
    for (const ch of node) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    const file = files[h % parts]!;
    file.lines.push({ line: file.lines.length + 1, text });
  }
  return files;
}

function analyzed(files: NodeFile[]): Finding[] {
  const db = openDb(':memory:');
  for (const f of files) {
    const ingest = new SourceIngest(db, f.name);
    for (const l of f.lines) ingest.add(l);
    ingest.finish(null);
  }
  const findings = detect(db).findings;
  db.close();
  return findings;
}

/** Round by round, file i gives (i + 1) × `batch` lines. */
function watched(files: NodeFile[], batch: number): Finding[] {
  const db = openDb(':memory:');
  const live = new LiveSession(db);
  const at = files.map(() => 0);
  while (files.some((f, i) => at[i]! < f.lines.length)) {
    files.forEach((f, i) => {
      const n = (i + 1) * batch;
      live.addLines(f.name, f.lines.slice(at[i]!, at[i]! + n));
      at[i]! += n;
    });
    live.detect();
  }
  // the end of the run, as watch ends it (live/runner.ts)
  live.finish();
  live.settle(true);
  const findings = live.book.all();
  db.close();
  return findings;
}

const sorted = (fs: Finding[]) => fs.map((f) => JSON.stringify(f)).sort();

describe('watch over node files read at different paces ends with what analyze finds', () => {
  it.each([
    ['fuzz', 1],
    ['fuzz', 2],
    ['production', 1],
  ] as const)('%s, seed %i, 8k lines in three files', async (shape, seed) => {
    const path = dir.file(`${shape}-${seed}.ndjson`);
    await generate(path, 8000, { shape, seed });
    const files = splitByNode(path, 3);
    expect(files.every((f) => f.lines.length > 1000)).toBe(true);
    const expected = analyzed(files);
    expect(expected.length).toBeGreaterThan(20);
    expect(sorted(watched(files, 150))).toEqual(sorted(expected));
    // ~10 s alone; a bound for a hang, not a speed goal (that is the bench's), with room for a loaded CI machine.
  }, 90_000);

  // One principal across hundreds of sessions, a 404 storm: whether a call retries another
  // session's hangs on what third sessions do between the two.
  it('storms, seed 2, 12k lines in one file', async () => {
    const path = dir.file('storms-2.ndjson');
    await generate(path, 12_000, { shape: 'storms', seed: 2 });
    const [file] = splitByNode(path, 1);
    const expected = analyzed([file!]);
    expect(expected.filter((f) => f.rule === 'duplicate-tool-call').length).toBeGreaterThan(10);
    expect(sorted(watched([file!], 150))).toEqual(sorted(expected));
  }, 90_000);
});

// What watch prints cannot be taken back: the findings announced along the way, not only those standing at the
// end, must be analyze's. A retry from a new session reads "the client left the first session" from the first
// session's last line in the whole log: a line of it a second after the retry withdraws the verdict.
describe('what watch announces of a log fed in pieces is what analyze finds in it whole', () => {
  // The production shape's 16k first lines; sess-19's answer at line 15760 undoes the retry sess-627 made at
  // line 14242 (a new session sess-627 was created for tok:shared after sess-19's call).
  const RETRY_LINE = 14_242;
  const LEFT_SESSION_ANSWER = 15_760;

  /** `pieces`: each file's name and the line up to which it goes, and where its batches end (a round after each, a second apart). */
  function announcedInPieces(lines: { line: number; text: string }[], pieces: { name: string; upTo: number; batches: number[] }[]): Finding[] {
    const db = openDb(':memory:');
    let clock = 0;
    const live = new LiveSession(db, { now: () => clock });
    const announced: Finding[] = [];
    let from = 0;
    for (const { name, upTo, batches } of pieces) {
      const first = from;
      for (const to of [...batches, upTo]) {
        live.addLines(name, lines.slice(from, to).map((l) => ({ line: l.line - first, text: l.text })));
        from = to;
        announced.push(...live.detect().fresh);
        clock += 1000;
        announced.push(...live.settle());
      }
      live.endSource(name);
    }
    // The run goes on with no line past the settle period (an idle tail), then ends.
    clock += DEFAULT_SETTLE_MS;
    announced.push(...live.settle());
    announced.push(...(live.finish()?.fresh ?? []), ...live.settle(true));
    db.close();
    return announced;
  }

  it('production, 16k lines rotated twice (rename, then copytruncate): no retry the left session\'s later answer withdraws', async () => {
    const path = dir.file('production-rotated.ndjson');
    await generate(path, 20_000, { shape: 'production' });
    const [whole] = splitByNode(path, 1);
    const lines = whole!.lines.slice(0, 16_000);
    const key = (f: Finding) => `${f.rule} ${f.session} ${f.at}`;
    const expected = analyzed([{ name: 'app.ndjson', lines }]).map(key).sort();
    const before = analyzed([{ name: 'app.ndjson', lines: lines.slice(0, LEFT_SESSION_ANSWER - 1) }]).map(key);
    // The case itself: the retry stands in the log up to the answer, and not in the whole.
    const retry = 'duplicate-tool-call sess-627 2026-11-09T10:00:13.184Z';
    expect(before).toContain(retry);
    expect(expected).not.toContain(retry);
    expect(lines[RETRY_LINE - 1]!.text).toContain('"sess-627"');

    const announced = announcedInPieces(lines, [
      { name: 'app.ndjson', upTo: 5009, batches: [] },
      { name: 'app.ndjson (rotated 1)', upTo: 9990, batches: [] },
      // the answer comes in a batch of a few hundred lines: judged by session, not as the whole log
      { name: 'app.ndjson (truncated 2)', upTo: 16_000, batches: [15_000, LEFT_SESSION_ANSWER - 1] },
    ]);
    expect(announced.map(key).sort()).toEqual(expected);
  }, 120_000);
});
