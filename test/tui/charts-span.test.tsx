import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { Charts } from '../../src/tui/components/Charts.js';
import { SeriesCounter } from '../../src/tui/wire/series.js';
import { plain } from './helpers.js';

// QA pass: `npx resumescope tui samples/ samples/sdk` (the SDK samples are dated
// 2026-11-29, the others 2026-11-09) titles every chart "06:00:00 → 06:00:00":
// the span shows only the time of day of the first and last 6-hour interval, so
// a log covering 20 days reads as a single instant.

afterEach(() => cleanup());

const upgrade = (iso: string, decision: string) => ({
  ts_ms: Date.parse(iso),
  kind: 'upgrade',
  origin: 'server',
  decision,
  status: 200,
  replayed: 0,
  reemitted: 0,
});

describe('charts over a log that spans days', () => {
  // Was a bug: a multi-day span is titled with times of day only ("06:00:00 → 06:00:00").
  it('names the days the charts cover', () => {
    const counter = new SeriesCounter();
    counter.add(upgrade('2026-11-09T10:00:00.000Z', 'resume'));
    counter.add(upgrade('2026-11-29T11:19:05.000Z', 'attach'));
    const text = plain(render(<Charts series={counter.series()} width={100} height={24} />).lastFrame());
    expect(text).toMatch(/11-09/);
    expect(text).toMatch(/11-29/);
  });
});
