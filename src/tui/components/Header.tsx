import { Box } from 'ink';
import type { Severity } from '../../model/severity.js';
import type { DashboardModel } from '../model.js';
import { fitSegments, type Segment } from '../segments.js';
import { severityStyle } from '../severityStyle.js';
import { formatCount, formatRate } from '../text.js';
import { Line } from './Line.js';

export type HeaderProps = Pick<
  DashboardModel,
  'sources' | 'mode' | 'records' | 'ratePerSec' | 'rejected' | 'ignored' | 'bySeverity'
> & {
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
    { text: `  ${formatRate(p.ratePerSec)}/s`, dim: p.mode !== 'live' },
    p.rejected > 0 ? { text: `  rejected ${formatCount(p.rejected)}`, color: 'red' } : { text: '  rejected 0', dim: true },
    { text: `  ignored ${formatCount(p.ignored)}`, dim: p.ignored === 0 },
  ];
}

export function Header(props: HeaderProps) {
  const { width, lines } = props;
  if (lines === 0) return null;
  const title: Segment[] = [
    { text: 'resumescope', bold: true },
    props.mode === 'live' ? { text: '  ● live', color: 'green' } : { text: '  recorded', dim: true },
    { text: '  findings: ' },
    ...severityCounts(props.bySeverity),
  ];
  const counts: Segment[] = [
    ...recordCounts(props),
    { text: props.sources.length > 0 ? `  ← ${props.sources.join(', ')}` : '', dim: true },
  ];
  if (lines === 1) {
    return <Line segments={fitSegments([...recordCounts(props), { text: '  ' }, ...severityCounts(props.bySeverity)], width)} />;
  }
  return (
    <Box flexDirection="column" width={width} height={2} overflow="hidden">
      <Line segments={fitSegments(title, width)} />
      <Line segments={fitSegments(counts, width)} />
    </Box>
  );
}
