import { describe, expect, it } from 'vitest';
import { FindingBook } from '../../src/live/finding-book.js';
import { openDb } from '../../src/store/db.js';
import { DashboardModelSource } from '../../src/tui/wire/store-model.js';

// Terminal review 57: a live model was made anew each second for its rate, though the rate read the
// same (0/s while idle), and each new model redrew the whole screen.

describe('the live model while nothing arrives', () => {
  it('stays the same object second after second while its rate reads the same', () => {
    const db = openDb(':memory:');
    let now = Date.UTC(2026, 10, 9, 10);
    const source = new DashboardModelSource(db, new FindingBook(), { sources: ['a.log'], mode: 'live', now: () => now });
    const first = source.model();
    for (let i = 0; i < 5; i++) {
      now += 1000;
      expect(source.model()).toBe(first);
    }
    db.close();
  });

  it('is made anew when the rate reads differently (near miss)', () => {
    const db = openDb(':memory:');
    let now = Date.UTC(2026, 10, 9, 10);
    const source = new DashboardModelSource(db, new FindingBook(), { sources: ['a.log'], mode: 'live', now: () => now });
    const first = source.model();
    expect(first.ratePerSec).toBe(0);
    db.prepare("INSERT INTO sources (name, sha256, records, ingested_at) VALUES ('a.log', 'x', 500, '2026-11-09T10:00:00Z')").run();
    now += 1000;
    const next = source.model();
    expect(next).not.toBe(first);
    expect(next.ratePerSec).toBe(500);
    db.close();
  });
});
