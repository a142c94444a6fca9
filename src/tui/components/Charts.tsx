import * as asciichart from 'asciichart';
import { Box } from 'ink';
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

/**
 * How a series' line is drawn, in asciichart's symbol order (axis zero, axis tick, two line ends,
 * horizontal, four corners, vertical). Each series of a chart has its own: colour alone would leave
 * the lines alike without colour (NO_COLOR, TERM=dumb) and to a colour-blind reader.
 */
type Glyphs = NonNullable<asciichart.PlotConfig['symbols']>;

const GLYPHS: Record<'light' | 'heavy' | 'double' | 'dashed', Glyphs> = {
  light: ['┼', '┤', '╶', '╴', '─', '╰', '╭', '╮', '╯', '│'],
  heavy: ['┼', '┤', '╺', '╸', '━', '┗', '┏', '┓', '┛', '┃'],
  double: ['┼', '┤', '╞', '╡', '═', '╚', '╔', '╗', '╝', '║'],
  dashed: ['┼', '┤', '┄', '┄', '┄', '└', '┌', '┐', '┘', '┆'],
};

interface ChartLine {
  name: string;
  values: readonly number[];
  ink: string;
  glyphs: Glyphs;
}

interface ChartSpec {
  title: string;
  lines: ChartLine[];
}

function chartSpecs(s: Series): ChartSpec[] {
  return [
    {
      title: 'decisions',
      lines: [
        { name: 'resume', values: s.decisions.resume, ink: 'green', glyphs: GLYPHS.light },
        { name: 'attach', values: s.decisions.attach, ink: 'cyan', glyphs: GLYPHS.heavy },
        { name: 'fresh', values: s.decisions.fresh, ink: 'yellow', glyphs: GLYPHS.double },
        { name: 'reject', values: s.decisions.reject, ink: 'red', glyphs: GLYPHS.dashed },
      ],
    },
    {
      title: 'replayed vs re-emitted',
      lines: [
        { name: 'replayed', values: s.replayed, ink: 'blue', glyphs: GLYPHS.light },
        { name: 're-emitted', values: s.reemitted, ink: 'magenta', glyphs: GLYPHS.double },
      ],
    },
    { title: '404s', lines: [{ name: '404', values: s.http404, ink: 'red', glyphs: GLYPHS.light }] },
  ];
}

/** A chart is drawn only with at least this many plot rows under its legend. */
const MIN_PLOT_ROWS = 2;

/**
 * Counts have whole-number ticks: the top of the axis is raised to a multiple of the
 * number of steps, so every tick asciichart draws (top * i / steps) is an integer.
 */
function countAxis(max: number, plotLines: number): { steps: number; top: number; format: (x: number) => string } {
  const wanted = Math.max(1, plotLines - 1);
  // Fewer rows than steps for a small maximum: 0..3 on three rows, not 0, 0.6, 1.2 …
  const steps = Math.max(1, Math.min(wanted, Math.ceil(max)));
  const top = Math.max(steps, Math.ceil(max / steps) * steps);
  const width = Math.max(3, String(top).length);
  return { steps, top, format: (x: number) => String(Math.round(x)).padStart(width) };
}

const AXIS = /[┼┤]/;

/**
 * The series plotted one by one, each with its glyphs, on the same axis, then laid over one another:
 * rows of segments, each series in its colour.
 */
function overlay(plots: readonly string[][], lines: readonly ChartLine[]): Segment[][] {
  const rows = plots[0]?.length ?? 0;
  const out: Segment[][] = [];
  for (let r = 0; r < rows; r++) {
    const first = plots[0]![r] ?? '';
    const axisAt = first.search(AXIS);
    if (axisAt < 0) {
      out.push([{ text: first }]);
      continue;
    }
    // The axis crosses (┼) where any series starts or where zero is.
    const axis = plots.some((p) => (p[r] ?? '')[axisAt] === '┼') ? '┼' : '┤';
    const cells: { ch: string; owner: number }[] = [];
    // Where lines meet, a bend or a rise (of any series) shows over a flat stretch, so that every
    // series' moves stay visible; flat over flat, the later series shows.
    const flat = (cell: { ch: string; owner: number } | undefined) => cell === undefined || cell.ch === lines[cell.owner]?.glyphs[4];
    plots.forEach((p, owner) => {
      const row = p[r] ?? '';
      for (let i = axisAt + 1; i < row.length; i++) {
        const ch = row[i] as string;
        if (ch !== ' ' && flat(cells[i - axisAt - 1])) cells[i - axisAt - 1] = { ch, owner };
      }
    });
    const segments: Segment[] = [{ text: first.slice(0, axisAt) + axis }];
    let run: { text: string; owner: number } | undefined;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] ?? { ch: ' ', owner: -1 };
      if (run && run.owner === cell.owner) {
        run.text += cell.ch;
        continue;
      }
      if (run) segments.push({ text: run.text, color: lines[run.owner]?.ink });
      run = { text: cell.ch, owner: cell.owner };
    }
    if (run) segments.push({ text: run.text, color: lines[run.owner]?.ink });
    out.push(segments);
  }
  return out;
}

/** Plot rows that fit `width` cells and `plotLines` rows. */
function plotRowsFor(spec: ChartSpec, width: number, plotLines: number): Segment[][] {
  const longest = Math.max(1, ...spec.lines.map((l) => l.values.length));
  // Start from a guess (3-cell axis labels) and let the measurement correct it.
  let points = Math.max(1, Math.min(longest, width - 5));
  for (;;) {
    const size = bucketSize(longest, points);
    const data = spec.lines.map((l) => (l.values.length > 0 ? sumBuckets(l.values, size) : [0]));
    const axis = countAxis(maxOf(data.map(maxOf)), plotLines);
    const config = { height: axis.steps, min: 0, max: axis.top, format: axis.format };
    const plots = data.map((d, i) => asciichart.plot(d, { ...config, symbols: spec.lines[i]!.glyphs }).split('\n'));
    const widest = Math.max(...plots.flatMap((p) => p.map(cellWidth)));
    if (widest <= width) return overlay(plots, spec.lines).slice(0, plotLines);
    if (points === 1) return [];
    // Fewer points by exactly the overflow; summing may widen the axis labels, hence the loop.
    points = Math.max(1, Math.min(points - 1, Math.ceil(longest / size) - (widest - width)));
  }
}

/** A series' mark in a legend: a sample of its line (`cells` long), in its colour. */
function legendItem(l: ChartLine, cells: number): Segment[] {
  return [{ text: l.glyphs[4].repeat(cells), color: l.ink }, { text: ` ${l.name} ${formatCount(total(l.values))}` }];
}

const widthOf = (segments: readonly Segment[]) => segments.reduce((w, s) => w + cellWidth(s.text), 0);

function joined(parts: readonly Segment[][], gap: string): Segment[] {
  return parts.flatMap((p, i) => (i === 0 ? p : [{ text: gap }, ...p]));
}

/**
 * The chart's title and legend on one line when it fits: the time span is dropped first, then the
 * legend is drawn tighter; else it wraps between items, so that a narrow pane keeps every series' name.
 */
function legendRows(spec: ChartSpec, span: string, width: number): Segment[][] {
  const title: Segment[] = [{ text: spec.title, bold: true }];
  const items = spec.lines.map((l) => legendItem(l, 2));
  const spanItem: Segment[] = [{ text: span, dim: true }];
  const candidates = [
    joined([title, ...items, ...(span ? [spanItem] : [])], '  '),
    joined([title, ...items], '  '),
    joined([title, ...spec.lines.map((l) => legendItem(l, 1))], ' '),
  ];
  const oneLine = candidates.find((c) => widthOf(c) <= width);
  if (oneLine) return [fitSegments(oneLine, width)];
  const rows: Segment[][] = [];
  let row = title;
  for (const item of items) {
    const longer = joined([row, item], '  ');
    if (widthOf(longer) <= width) row = longer;
    else {
      rows.push(row);
      row = item;
    }
  }
  if (span && widthOf(joined([row, spanItem], '  ')) <= width) row = joined([row, spanItem], '  ');
  rows.push(row);
  // An item wider than the pane is cut: its marker and the start of its name still show.
  return rows.map((r) => fitSegments(r, width));
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
  const first = series.labels[0] ?? '';
  const last = series.labels[series.labels.length - 1] ?? '';
  // Times of day alone would make a log spanning days read as one instant.
  const sameDay = first.slice(0, 10) === last.slice(0, 10);
  const stamp = (at: string) => (sameDay ? formatClock(at) : `${at.slice(5, 10)} ${formatClock(at)}`);
  const span = first === last ? stamp(first) : `${stamp(first)} → ${stamp(last)}`;
  // As many charts as fit, each its legend and at least MIN_PLOT_ROWS; the rows left over are shared out.
  const blocks: { spec: ChartSpec; legend: Segment[][] }[] = [];
  let used = 0;
  for (const spec of specs) {
    const legend = legendRows(spec, span, width);
    if (used + legend.length + MIN_PLOT_ROWS > height) break;
    blocks.push({ spec, legend });
    used += legend.length + MIN_PLOT_ROWS;
  }
  if (blocks.length === 0) {
    return <Line segments={fitSegments(summarySegments(specs), width)} />;
  }
  const spare = height - used;
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {blocks.map(({ spec, legend }, b) => {
        const plotLines = MIN_PLOT_ROWS + Math.floor(spare / blocks.length) + (b < spare % blocks.length ? 1 : 0);
        return (
          <Box key={spec.title} flexDirection="column" width={width} height={legend.length + plotLines} overflow="hidden">
            {legend.map((row, i) => (
              <Line key={`legend${i}`} segments={row} />
            ))}
            {plotRowsFor(spec, width, plotLines).map((row, i) => (
              <Line key={i} segments={fitSegments(row, width)} />
            ))}
          </Box>
        );
      })}
    </Box>
  );
}
