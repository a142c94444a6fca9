import { Box } from 'ink';
import type { Severity } from '../../model/severity.js';
import type { DashboardModel } from '../view-model.js';
import { fitSegments, type Segment } from '../segments.js';
import { severityStyle } from '../severityStyle.js';
import { cellWidth, formatClock, formatCount, formatRate } from '../safe-text.js';
import { Line } from './Line.js';

export type HeaderProps = Pick<
  DashboardModel,
  'sources' | 'mode' | 'records' | 'ratePerSec' | 'rejected' | 'ignored' | 'bySeverity'
> & {
  /** Findings that arrived since the user paused (live). */
  paused?: boolean;
  heldBack?: number;
  /** Rotations and truncations of followed files, newest last. */
  sourceEvents?: DashboardModel['sourceEvents'];
  /** Sessions nodes lost without a log line, oldest first. */
  losses?: DashboardModel['losses'];
  width: number;
  /** 2: title and findings, then counts and sources; 1: counts only (short terminals). */
  lines: 0 | 1 | 2;
};

const SEVERITY_ORDER: readonly Severity[] = ['critical', 'error', 'warning', 'info'];

function severityCounts(bySeverity: Record<Severity, number>): Segment[] {
  return SEVERITY_ORDER.flatMap((s, i) => {
    const n = bySeverity[s] ?? 0;
    const style = severityStyle(s);
    return [
      { text: i === 0 ? '' : '  ' },
      // Zero counts stay grey so the eye goes to what is there.
      n > 0 ? { text: `${s} ${formatCount(n)}`, color: style.color, bold: style.bold } : { text: `${s} 0`, dim: true },
    ];
  });
}

/** Part of a header line; when the line is short of room, the least important parts are left out whole. */
interface Part {
  segments: Segment[];
  priority: number;
  /** Rather than left out, cut to the room left when that is at least this many cells. */
  cutTo?: number;
}

const widthOf = (segments: readonly Segment[]) => segments.reduce((w, s) => w + cellWidth(s.text), 0);

/**
 * The parts that fit, the most important first, shown in their own order; the most important one is
 * always there (cut at the end if it alone is too wide).
 */
function fitParts(parts: readonly Part[], width: number): Segment[] {
  const kept = new Map<Part, Segment[]>();
  let room = width;
  for (const part of [...parts].sort((a, b) => b.priority - a.priority)) {
    const w = widthOf(part.segments);
    if (kept.size === 0 || w <= room) kept.set(part, part.segments);
    else if (part.cutTo !== undefined && room >= part.cutTo) kept.set(part, fitSegments(part.segments, room));
    else continue;
    room -= Math.min(w, room);
  }
  const [first, ...rest] = parts.flatMap((p) => kept.get(p) ?? []);
  // The gap before a part is in its text: none before the first one shown.
  return first === undefined ? [] : fitSegments([{ ...first, text: first.text.trimStart() }, ...rest], width);
}

function recordCounts(p: HeaderProps): Part[] {
  return [
    { segments: [{ text: `records ${formatCount(p.records)}` }], priority: 9 },
    // A recorded log has no rate: "0/s" would read as a stalled feed.
    ...(p.mode === 'live' ? [{ segments: [{ text: `  ${formatRate(p.ratePerSec)}/s` }], priority: 7 }] : []),
    p.rejected > 0
      ? { segments: [{ text: `  rejected ${formatCount(p.rejected)}`, color: 'red' }], priority: 8 }
      : { segments: [{ text: '  rejected 0', dim: true }], priority: 2 },
    { segments: [{ text: `  ignored ${formatCount(p.ignored)}`, dim: p.ignored === 0 }], priority: p.ignored > 0 ? 3 : 1 },
  ];
}

/** A path's last part: the header has no room for the folders. */
function fileName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1) || path;
}

function liveMark(p: HeaderProps): Segment {
  if (p.mode !== 'live') return { text: '  recorded', dim: true };
  if (p.paused) return { text: `  ⏸ paused, ${formatCount(p.heldBack ?? 0)} new held back (p resumes)`, color: 'yellow', bold: true };
  return { text: '  ● live', color: 'green' };
}

/** The latest loss, as the reports open with it (render/node-losses.ts): a restart the log does not show is news. */
function lossMark(losses: HeaderProps['losses']): Part[] {
  const loss = losses?.[losses.length - 1];
  if (loss === undefined) return [];
  // To the second, as the header shows times: 10:00:24.1–10:00:24.9 reads as one instant, not "10:00:24–10:00:24".
  const from = formatClock(loss.from);
  const until = formatClock(loss.until);
  const when = from === until ? from : `${from}–${until}`;
  const more = losses!.length > 1 ? ` (+${losses!.length - 1} earlier)` : '';
  const node = loss.node ?? 'the server';
  const text = `  ⚠ ${node} lost ${formatCount(loss.sessions)} session${loss.sessions === 1 ? '' : 's'} without a log line, 404s ${when}${more}`;
  // The incident signal: it goes first when room is short.
  return [{ segments: [{ text, color: 'red', bold: true }], priority: 10 }];
}

export function Header(props: HeaderProps) {
  const { width, lines } = props;
  if (lines === 0) return null;
  const title: Segment[] = [
    { text: 'resumescope', bold: true },
    liveMark(props),
    { text: '  findings: ' },
    ...severityCounts(props.bySeverity),
  ];
  const event = props.sourceEvents?.[props.sourceEvents.length - 1];
  const counts: Part[] = [
    ...recordCounts(props),
    ...lossMark(props.losses),
    // A rotation is news, after the loss of sessions: before the counts of nothing and the (long) source list.
    ...(event ? [{ segments: [{ text: `  ↻ ${formatClock(event.at)} ${fileName(event.source)} ${event.text}`, color: 'yellow', bold: true }], priority: 6, cutTo: 24 }] : []),
    { segments: [{ text: props.sources.length > 0 ? `  ← ${props.sources.join(', ')}` : '', dim: true }], priority: 0 },
  ];
  if (lines === 1) {
    // One line: the findings by severity go before the counts of rejected and ignored lines.
    const compact: Part[] = [
      ...(props.paused ? [{ segments: [{ ...liveMark(props), text: liveMark(props).text.trimStart() }, { text: '  ' }], priority: 11 }] : []),
      ...recordCounts(props),
      { segments: [{ text: '  ' }, ...severityCounts(props.bySeverity)], priority: 8.5, cutTo: 10 },
    ];
    return <Line segments={fitParts(compact, width)} />;
  }
  return (
    <Box flexDirection="column" width={width} height={2} overflow="hidden">
      <Line segments={fitSegments(title, width)} />
      <Line segments={fitParts(counts, width)} />
    </Box>
  );
}
