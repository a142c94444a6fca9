import type { FailOn } from '../../model/severity.js';
import type { UnusableInput } from '../../model/unusable-input.js';
import type { SessionTimelineStream } from '../../store/session-timeline.js';
import type { LineText } from '../common.js';

// What the HTML report is drawn from besides the report itself. The CLI hands
// in readers over the store (the same ones `timeline` and the dashboard use);
// a caller without a store gets a report that says what it could not show.

/** The dashboard's chart series: counts per interval of one width (the tui's `Series`). */
export interface ChartSeries {
  /** Interval starts, RFC 3339. */
  labels: string[];
  decisions: { resume: number[]; attach: number[]; fresh: number[]; reject: number[] };
  replayed: number[];
  reemitted: number[];
  http404: number[];
}

/** A line the reader could not take as a record (stored redacted). */
export interface RejectedLineView {
  file: string;
  line: number;
  reason: string;
  text: string;
}

export interface HtmlOptions {
  /** Evidence line text, as stored (redacted at ingest). */
  lineText?: LineText;
  /** A session's timeline from the store, for the swimlanes. */
  timeline?: (session: string) => SessionTimelineStream | undefined;
  /** The dashboard's series over the whole log. */
  series?: ChartSeries;
  /** Rejected lines in file and line order, a page at a time. */
  rejected?: (offset: number, limit: number) => RejectedLineView[];
  toolVersion?: string;
  /** The gate the status line reports (default error, as --fail-on). */
  failOn?: FailOn;
  /** Inputs that were unusable: the gate failed (exit 2) whatever the findings. */
  unusable?: readonly UnusableInput[];
  /** Findings drawn per rule before the pager takes over. */
  pageSize?: number;
  /** Findings a rule carries (findings.ts DEFAULT_HTML_MAX_FINDINGS); the rest are counted per session. */
  maxFindings?: number;
}
