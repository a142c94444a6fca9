import { describe, expect, it } from 'vitest';
import { FindingBook } from '../../src/live/finding-book.js';
import type { Finding } from '../../src/model/finding.js';

const finding = (rule: Finding['rule'], severity: Finding['severity'], line: number): Finding => ({
  rule,
  severity,
  session: 'S1',
  at: '2026-11-09T10:00:46.000Z',
  message: `${rule} at line ${line}`,
  evidence: [{ file: 'app.ndjson', line }],
});

describe('announcements at one instant', () => {
  it('come most severe first, so `watch --format ndjson | head -1` shows the error, not the info', () => {
    const book = new FindingBook();
    const out = book.apply(['S1'], [finding('engine-divergence', 'info', 9), finding('session-id-reuse', 'warning', 8), finding('silent-fork', 'error', 9)]);
    expect(out.map((f) => f.severity)).toEqual(['error', 'warning', 'info']);
  });
});
