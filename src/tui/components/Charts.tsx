import * as asciichart from 'asciichart';
import { Box, Text } from 'ink';
import { bucketSize, isEmptySeries, maxOf, sumBuckets, total } from '../chartData.js';
import type { Series } from '../view-model.js';
import { fitSegments, type Segment } from '../segments.js';
import { cellWidth, formatClock, formatCount } from '../safe-text.js';
import { Line } from './Line.js';

export interface ChartsProps {
  series: Series;
  width: number;
  height: number;
}

interface ChartSpec {
  title: string;
  lines: { name: string; values: readonly number[]; ink: string; ansi: string }[];
}

function chartSpecs(s: Series): ChartSpec[] {
  return [
    {
      title: 'decisions',
      lines: [
        { name: 'resume', values: s.decisions.resume, ink: 'green', ansi: asciichart.green },
        { name: 'attach', values: s.decisions.attach, ink: 'cyan', ansi: asciichart.cyan },
        { name: 'fresh', values: s.decisions.fresh, ink: 'yellow', ansi: asciichart.yellow },
        { name: 'reject', values: s.decisions.reject, ink: 'red', ansi: asciichart.red },
      ],
    },
    {
      title: 'replayed vs re-emitted',
      lines: [
        { name: 'replayed', values: s.replayed, ink: 'blue', ansi: asciichart.blue },
        { name: 're-emitted', values: s.reemitted, ink: 'magenta', ansi: asciichart.magenta },
      ],
    },
    { title: '404s', lines: [{ name: '404', values: s.http404, ink: 'red', ansi: asciichart.red }] },
  ];
}

const MIN_CHART_LINES = 3;

/**
 * Counts have whole-number ticks: the top of the axis is raised to a multiple of the
 * number of steps, so every tick asciichart draws (top * i / steps) is an integer.
 */
export function countAxis(max: number, plotLines: number): { steps: number; top: number; format: (x: number) => string } {
  const wanted = Math.max(1, plotLines - 1);
  // Fewer rows than steps for a small maximum: 0..3 on three rows, not 0, 0.6, 1.2 …
  const steps = Math.max(1, Math.min(wanted, Math.ceil(max)));
  const top = Math.max(steps, Math.ceil(max / steps) * steps);
  const width = Math.max(3, String(top).length);
  return { steps, top, format: (x: number) => String(Math.round(x)).padStart(width) };
}

/** Plot lines that fit `width` cells and `plotLines` rows; the plain render measures, the coloured one is shown. */
function plotLinesFor(spec: ChartSpec, width: number, plotLines: number): string[] {
  const longest = Math.max(1, ...spec.lines.map((l) => l.values.length));
  // Start from a guess (3-cell axis labels) and let the measurement correct it.
  let points = Math.max(1, Math.min(longest, width - 5));
  for (;;) {
    const size = bucketSize(longest, points);
    const data = spec.lines.map((l) => (l.values.length > 0 ? sumBuckets(l.values, size) : [0]));
    const axis = countAxis(maxOf(data.map(maxOf)), plotLines);
    const config = { height: axis.steps, min: 0, max: axis.top, format: axis.format };
    const plain = asciichart.plot(data, config).split('\n');
    const widest = Math.max(...plain.map(cellWidth));
    if (widest <= width) {
      return asciichart.plot(data, { ...config, colors: spec.lines.map((l) => l.ansi) }).split('\n').slice(0, plotLines);
    }
    if (points === 1) return [];
    // Fewer points by exactly the overflow; summing may widen the axis labels, hence the loop.
    points = Math.max(1, Math.min(points - 1, Math.ceil(longest / size) - (widest - width)));
  }
}

function titleSegments(spec: ChartSpec, span: string): Segment[] {
  return [
    { text: spec.title, bold: true },
    ...spec.lines.flatMap((l) => [{ text: '  ■', color: l.ink }, { text: ` ${l.name} ${formatCount(total(l.values))}` }]),
    { text: span ? `  ${span}` : '', dim: true },
  ];
}

/** A one-line digest for panes too short for any chart. */
function summarySegments(specs: readonly ChartSpec[]): Segment[] {
  return specs.flatMap((spec, i) => [
    { text: `${i === 0 ? '' : '  '}${spec.title}:`, bold: true },
    ...spec.lines.map((l) => ({ text: ` ${l.name} ${formatCount(total(l.values))}`, color: l.ink })),
  ]);
}

/** Decisions by class, replayed vs re-emitted, and 404s, per interval, stacked to fit the pane. */
export function Charts({ series, width, height }: ChartsProps) {
  if (height <= 0) return null;
  if (isEmptySeries(series)) {
    return (
      <Box width={width} height={1} overflow="hidden">
        <Line segments={fitSegments([{ text: '  no data yet', dim: true }], width)} />
      </Box>
    );
  }
  const specs = chartSpecs(series);
  const count = Math.min(specs.length, Math.floor(height / MIN_CHART_LINES));
  if (count === 0) {
    return <Line segments={fitSegments(summarySegments(specs), width)} />;
  }
  const first = series.labels[0] ?? '';
  const last = series.labels[series.labels.length - 1] ?? '';
  // Times of day alone would make a log spanning days read as one instant.
  const sameDay = first.slice(0, 10) === last.slice(0, 10);
  const stamp = (at: string) => (sameDay ? formatClock(at) : `${at.slice(5, 10)} ${formatClock(at)}`);
  const span = first === last ? stamp(first) : `${stamp(first)} → ${stamp(last)}`;
  const blockLines = Math.floor(height / count);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {specs.slice(0, count).map((spec) => (
        <Box key={spec.title} flexDirection="column" width={width} height={blockLines} overflow="hidden">
          <Line segments={fitSegments(titleSegments(spec, span), width)} />
          {plotLinesFor(spec, width, blockLines - 1).map((line, i) => (
            <Text key={i} wrap="truncate-end">
              {line}
            </Text>
          ))}
        </Box>
      ))}
    </Box>
  );
}
