import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { LineNormalizer } from '../../src/normalize/normalize-line.js';

// A large input is normalized on two threads, a batch on one and the next on the other as their
// timing falls (pipeline/): what a line becomes must not depend on the lines normalized before it on
// the same thread. What does depend on earlier lines (a repeat, a stateless stream's version) the store
// settles (store/recent-lines.ts, store/inheriting-line.ts). Every line of these logs, normalized after
// all the lines before it and then on its own (its file's format given, as the thread taking over is told),
// comes out the same.

function linesOf(dir: string): string[][] {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile() && /\.(ndjson|log|jsonl)$/.test(f.name));
  return files.map((f) => readFileSync(join(f.parentPath, f.name), 'utf8').split('\n').filter((l) => l !== ''));
}

describe('normalizing', () => {
  it('is a function of one line: after every line before it, or alone, a line comes out the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resumescope-one-line-'));
    try {
      await generate(join(dir, 'production.ndjson'), 4000, { shape: 'production', seed: 7 });
      // a 2026-07-28 request: its version only where it begins, its later records on its stream without one
      const at = (ms: number) => new Date(Date.parse('2026-11-09T10:00:00Z') + ms).toISOString();
      const stateless = [
        { ts: at(1), kind: 'call', rpc_id: 1, method: 'tools/call', tool: 't', status: 200, protocol_version: '2026-07-28' },
        { ts: at(2), kind: 'stream.opened', stream: 'p1', via: 'post', protocol_version: '2026-07-28' },
        { ts: at(3), kind: 'event.sent', stream: 'p1', event_id: 'e1', rpc_kind: 'notification' },
        { ts: at(4), kind: 'stream.closed', stream: 'p1', reason: 'server' },
      ].map((r) => JSON.stringify(r));
      const files = [...linesOf('samples'), ...linesOf('test/fixtures'), ...linesOf(dir), stateless];
      let compared = 0;
      for (const lines of files) {
        const inOrder = new LineNormalizer();
        for (const line of lines) {
          const after = inOrder.normalize(line);
          const alone = new LineNormalizer(inOrder.formatName).normalize(line);
          expect(alone, line).toEqual(after);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(4000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
