import type { Db } from '../../store/db.js';
import type { Series } from '../view-model.js';
import { SeriesCounter, type ChartRecord } from './series.js';

// The records the charts count, read from the store: the dashboard takes the
// new ones on each refresh, and the HTML report all of them at once, so both
// draw the same numbers.

/** Upgrades and 404s stored after a rowid, in rowid order; iterate with the last rowid seen (0 for all). */
export function chartRecordsAfter(db: Db): { iterate(afterId: number): Iterable<ChartRecord> } {
  const stmt = db.prepare(
    "SELECT id, ts_ms, kind, origin, decision, status, replayed, reemitted FROM records WHERE id > ? AND shadowed = 0 AND (kind = 'upgrade' OR status = 404) ORDER BY id",
  );
  return { iterate: (afterId) => stmt.iterate(afterId) as Iterable<ChartRecord> };
}

/** The dashboard's series over every record in the store. */
export function storeSeries(db: Db): Series {
  const counter = new SeriesCounter();
  for (const r of chartRecordsAfter(db).iterate(0)) counter.add(r);
  return counter.series();
}
