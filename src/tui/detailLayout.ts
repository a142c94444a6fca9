// How a session's drill-down splits its height between the lane timeline and
// the findings with their evidence. Shared by the view and the key handler
// (which needs the timeline's page size to clamp scrolling).
import type { SessionDetail } from './view-model.js';

/** Title line and lane header line. */
const DETAIL_HEADER_LINES = 2;

export interface DetailLayout {
  timelineRows: number;
  findingsLines: number;
}

/** Lines the findings block wants: a title, then each finding and its evidence lines. */
function findingsLinesWanted(detail: SessionDetail): number {
  if (detail.findings.length === 0) return 0;
  return 1 + detail.findings.reduce((n, f) => n + 1 + f.evidence.length, 0);
}

export function detailLayout(detail: SessionDetail, height: number): DetailLayout {
  const available = Math.max(0, height - DETAIL_HEADER_LINES);
  const wanted = findingsLinesWanted(detail);
  // Findings get at least half when they need it, more when the timeline is short.
  const findingsLines = Math.min(wanted, Math.max(Math.floor(available / 2), available - detail.rows.length));
  return { timelineRows: available - findingsLines, findingsLines };
}
