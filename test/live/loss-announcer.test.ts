import { describe, expect, it } from 'vitest';
import { LossAnnouncer } from '../../src/live/loss-announcer.js';
import type { NodeLoss } from '../../src/model/finding.js';

// What `watch --format ndjson` tells on stderr as a log grows: a line cannot be taken back, so each
// loss is told once when first shown, and at the end again only if it has grown since.

const loss = (node: string | null, sessions: string[], fromMs = 0): NodeLoss => ({
  node,
  sessions: sessions.length,
  not_found: sessions.length,
  from_ms: fromMs,
  until_ms: fromMs,
  evidence: [],
  lost: sessions.map((session) => ({ session, after_ms: 0 })),
});

describe('LossAnnouncer', () => {
  it('tells a loss the first time it is shown, and not again at the next refresh', () => {
    const a = new LossAnnouncer();
    const first = loss('mcp-b', ['S1']);
    expect(a.fresh([first])).toEqual([first]);
    expect(a.fresh([first])).toEqual([]);
    expect(a.untold([first])).toEqual([]);
  });

  it('a loss that grew is not told again while the log grows, and is told with its final count at the end', () => {
    const a = new LossAnnouncer();
    a.fresh([loss('mcp-b', ['S1'])]);
    const grown = loss('mcp-b', ['S1', 'S2']);
    expect(a.fresh([grown])).toEqual([]);
    expect(a.untold([grown])).toEqual([grown]);
    expect(a.untold([grown])).toEqual([]);
  });

  it('a loss that got more 404s on the same sessions is told with its final count at the end, and a loss that did not is not (near miss)', () => {
    const a = new LossAnnouncer();
    const first = loss('mcp-b', ['S1']);
    a.fresh([first]);
    expect(a.untold([first])).toEqual([]);
    const more = { ...loss('mcp-b', ['S1']), not_found: 6 };
    expect(a.fresh([more])).toEqual([]);
    expect(a.untold([more])).toEqual([more]);
    expect(a.untold([more])).toEqual([]);
  });

  it('a later loss of the same node, and the same session id lost on another node, are new losses', () => {
    const a = new LossAnnouncer();
    a.fresh([loss('mcp-b', ['S1'])]);
    const later = loss('mcp-b', ['S7'], 600_000);
    const elsewhere = loss('mcp-c', ['S1']);
    expect(a.fresh([loss('mcp-b', ['S1']), later, elsewhere])).toEqual([later, elsewhere]);
  });

  it('a loss never shown while the log grew (held back) is told at the end', () => {
    const a = new LossAnnouncer();
    expect(a.fresh([])).toEqual([]);
    const silent = loss(null, ['S1']);
    expect(a.untold([silent])).toEqual([silent]);
  });

  it('tells a loss of 200,000 sessions, as a restart of a busy node makes', () => {
    const a = new LossAnnouncer();
    const big = loss('mcp-b', Array.from({ length: 200_000 }, (_, i) => `S${i}`));
    expect(a.fresh([big])).toEqual([big]);
    expect(a.untold([big])).toEqual([]);
  });
});
