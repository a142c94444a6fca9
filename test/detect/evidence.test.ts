import { describe, expect, it } from 'vitest';
import { evidenceInLogOrder, resolveEvidence } from '../../src/detect/evidence.js';
import { at, workspaceOf } from '../helpers/logs.js';

// A finding's evidence is the file:line of each record it names, in log order (time, then the
// order records were stored), each once; an id no record has is left out.

const lines = [
  { ts: at(30), kind: 'session.created', session: 'S1' },
  { ts: at(10), kind: 'session.created', session: 'S2' },
  { ts: at(10), kind: 'session.terminated', session: 'S2', reason: 'client' },
  { ts: at(20), kind: 'session.terminated', session: 'S1', reason: 'client' },
];

async function stored() {
  const ws = await workspaceOf(lines);
  const ids = ws.db.prepare('SELECT id, line FROM records ORDER BY id').raw().all() as [number, number][];
  return { db: ws.db, idOfLine: new Map(ids.map(([id, line]) => [line, id])) };
}

describe('evidence', () => {
  it('is read in log order, each record once, without ids no record has', async () => {
    const { db, idOfLine } = await stored();
    const [l1, l2, l3, l4] = [1, 2, 3, 4].map((l) => idOfLine.get(l)!) as [number, number, number, number];
    const missing = Math.max(...idOfLine.values()) + 100;
    const refs = resolveEvidence(db, [l1, missing, l4, l3, l2, l4]);
    const order = evidenceInLogOrder([l1, missing, l4, l3, l2, l4], refs);
    // lines 2 and 3 share a time: stored order breaks the tie
    expect(order.map((r) => r.line)).toEqual([2, 3, 4, 1]);
    expect(refs.has(missing)).toBe(false);
    expect(refs.get(missing)).toBeUndefined();
    expect(refs.get(l4)).toEqual({ ref: { file: expect.any(String), line: 4 }, tsMs: Date.parse(at(20)) });
  });

  it('gives every finding that cites a record the same file:line', async () => {
    const { db, idOfLine } = await stored();
    const id = idOfLine.get(2)!;
    const refs = resolveEvidence(db, [id, idOfLine.get(1)!]);
    expect(evidenceInLogOrder([id], refs)[0]).toBe(evidenceInLogOrder([idOfLine.get(1)!, id], refs)[0]);
  });

  it('resolves nothing from no ids', async () => {
    const { db } = await stored();
    const refs = resolveEvidence(db, []);
    expect(evidenceInLogOrder([1, 2], refs)).toEqual([]);
  });
});
