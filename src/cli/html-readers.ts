import type { RenderOptions } from '../render/index.js';
import type { Db } from '../store/db.js';
import { sessionTimelineStream } from '../store/session-timeline.js';
import { rejectedLoader } from '../tui/wire/rejected.js';
import { storeSeries } from '../tui/wire/store-series.js';

/**
 * What the HTML report reads from the store beyond the report: the same
 * timeline reader as `timeline` and the dashboard's drill-down, the
 * dashboard's chart series, and its rejected-lines reader.
 */
export function htmlReaders(db: Db): Pick<RenderOptions, 'timeline' | 'series' | 'rejected'> {
  return { timeline: (session) => sessionTimelineStream(db, session), series: storeSeries(db), rejected: rejectedLoader(db) };
}
