import { detectDerived, type RunOptions } from '../detect/run.js';
import type { Report } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { deriveTimeline } from '../store/derive.js';
import { sessionTimelineStream, type SessionTimelineStream } from '../store/session-timeline.js';

// The one place the derived timeline is written on this thread (findings.ts derives on two). The stages
// after it (detect, the store's read models) take a derived database and throw on one with sessions
// left to derive; the front ends (commands, the tui, live mode, the library's detect) come here.

/** The derived timeline brought up to date with what was ingested: the sessions touched since the last derive. */
export function derive(db: Db): number {
  return deriveTimeline(db);
}

/** A loaded database to its report, on this thread: derive, then detect (the library's `detect`, and live mode's rounds). */
export function detect(db: Db, opts: RunOptions = {}): Report {
  deriveTimeline(db);
  return detectDerived(db, opts);
}

/** One session's timeline (store/session-timeline.ts), derived first: `timeline`, and the dashboards' drill-down. */
export function sessionTimelineOf(db: Db, session: string): SessionTimelineStream | undefined {
  deriveTimeline(db);
  return sessionTimelineStream(db, session);
}
