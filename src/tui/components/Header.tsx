import { Box } from 'ink';
import type { Severity } from '../../model/severity.js';
import type { DashboardModel } from '../view-model.js';
import { fitSegments, type Segment } from '../segments.js';
import { severityStyle } from '../severityStyle.js';
import { formatClock, formatCount, formatRate } from '../safe-text.js';
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

function recordCounts(p: HeaderProps): Segment[] {
  return [
    { text: `records ${formatCount(p.records)}` },
    // A recorded log has no rate: "0/s" would read as a stalled feed.
    ...(p.mode === 'live' ? [{ text: `  ${formatRate(p.ratePerSec)}/s` }] : []),
    p.rejected > 0 ? { text: `  rejected ${formatCount(p.rejected)}`, color: 'red' } : { text: '  rejected 0', dim: true },
    { text: `  ignored ${formatCount(p.ignored)}`, dim: p.ignored === 0 },
  ];
}

function liveMark(p: HeaderProps): Segment {
  if (p.mode !== 'live') return { text: '  recorded', dim: true };
  if (p.paused) return { text: `  ⏸ paused, ${formatCount(p.heldBack ?? 0)} new held back (p resumes)`, color: 'yellow', bold: true };
  return { text: '  ● live', color: 'green' };
}

/** The latest loss, as the reports open with it (render/node-losses.ts): a restart the log does not show is news. */
function lossMark(losses: HeaderProps['losses']): Segment[] {
  const loss = losses?.[losses.length - 1];
  if (loss === undefined) return [];
  const when = loss.from === loss.until ? formatClock(loss.from) : `${formatClock(loss.from)}–${formatClock(loss.until)}`;
  const more = losses!.length > 1 ? ` (+${losses!.length - 1} earlier)` : '';
  const node = loss.node ?? 'the server';
  return [{ text: `  ⚠ ${node} lost ${formatCount(loss.sessions)} session${loss.sessions === 1 ? '' : 's'} without a log line, 404s ${when}${more}`, color: 'red', bold: true }];
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
  const counts: Segment[] = [
    ...recordCounts(props),
    // A rotation is news: it goes before the (long) source list.
    ...(event ? [{ text: `  ↻ ${formatClock(event.at)} ${event.text}`, color: 'yellow', bold: true }] : []),
    ...lossMark(props.losses),
    { text: props.sources.length > 0 ? `  ← ${props.sources.join(', ')}` : '', dim: true },
  ];
  if (lines === 1) {
    const mark = props.paused ? [liveMark(props)] : [];
    return <Line segments={fitSegments([...mark, ...recordCounts(props), { text: '  ' }, ...severityCounts(props.bySeverity)], width)} />;
  }
  return (
    <Box flexDirection="column" width={width} height={2} overflow="hidden">
      <Line segments={fitSegments(title, width)} />
      <Line segments={fitSegments(counts, width)} />
    </Box>
  );
}
