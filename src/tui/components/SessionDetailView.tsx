import { Box } from 'ink';
import { detailLayout } from '../detailLayout.js';
import type { FeedItem, SessionDetail, SessionLane, TimelineRow } from '../view-model.js';
import { fitSegments, type Segment } from '../segments.js';
import { windowStart } from '../selectors.js';
import { severityStyle } from '../severityStyle.js';
import { cellWidth, fitEnd, fitStart, formatClock, truncateStart } from '../safe-text.js';
import { Line } from './Line.js';

export interface SessionDetailViewProps {
  detail: SessionDetail;
  /** The selected timeline row: the timeline scrolls to keep it in view (clamped, so a stale value is harmless). */
  cursor: number;
  /** The selected finding: its line and its evidence stay in view in the findings block. */
  findingKey: string | null;
  /** Rows matching the search are marked. */
  matches?: (row: TimelineRow) => boolean;
  width: number;
  height: number;
}

// A one-cell mark (selected row, evidence, match) then the time with milliseconds.
const TIME_WIDTH = 13;
const MIN_LANE_WIDTH = 14;
const MAX_REF_WIDTH = 28;
const LANE_SEPARATOR = '│';

function formatRef(ref: { file: string; line: number }): string {
  return `${ref.file}:${ref.line}`;
}

interface LaneGrid {
  /** Lanes with a column of their own; rows on other lanes go to the last column, tagged with their lane. */
  shown: readonly SessionLane[];
  laneWidth: number;
  refWidth: number;
  /** Cells from the first lane column to the end of the last one. */
  laneAreaWidth: number;
}

function laneGrid(detail: SessionDetail, width: number): LaneGrid {
  const longestRef = detail.rows.reduce((w, r) => Math.max(w, cellWidth(formatRef(r.ref))), 0);
  const refWidth = Math.min(MAX_REF_WIDTH, longestRef, Math.max(0, Math.floor(width / 4)));
  const area = Math.max(1, width - TIME_WIDTH - 1 - refWidth - 1);
  const fit = Math.max(1, Math.floor((area + 1) / (MIN_LANE_WIDTH + 1)));
  const columns = Math.max(1, Math.min(detail.lanes.length, fit));
  const laneWidth = Math.max(1, Math.floor((area - (columns - 1)) / columns));
  return {
    shown: detail.lanes.slice(0, columns),
    laneWidth,
    refWidth,
    laneAreaWidth: columns * laneWidth + (columns - 1),
  };
}

function laneHeader(lane: SessionLane): string {
  return `${lane.stream}${lane.via ? ` (${lane.via})` : ''} ${lane.state}`;
}

function headerSegments(grid: LaneGrid): Segment[] {
  const lanes = grid.shown.length > 0 ? grid.shown.map(laneHeader) : ['(no streams)'];
  return [
    { text: fitEnd('time', TIME_WIDTH), bold: true },
    { text: ' ' },
    ...lanes.flatMap((l, i) => [
      ...(i === 0 ? [] : [{ text: LANE_SEPARATOR, dim: true }]),
      { text: fitEnd(l, grid.laneWidth), bold: true },
    ]),
  ];
}

// Inside a lane the stream is implied, so "stream.opened" reads as "opened"; lanes are narrow.
function laneKind(kind: string): string {
  if (kind.startsWith('stream.') || kind.startsWith('event.')) return kind.slice(kind.indexOf('.') + 1);
  if (kind.startsWith('request.')) return `req.${kind.slice('request.'.length)}`;
  return kind;
}

function rowSegments(row: TimelineRow, grid: LaneGrid, mark: string, selected: boolean): Segment[] {
  const style = row.severity ? severityStyle(row.severity) : undefined;
  const text = `${row.lane === null ? row.kind : laneKind(row.kind)} ${row.text}`;
  const laneIndex = grid.shown.findIndex((l) => l.stream === row.lane);
  let lanes: Segment[];
  if (row.lane === null || grid.shown.length === 0) {
    // Session-level records concern every lane: they span the lane area.
    lanes = [{ text: fitEnd(text, grid.laneAreaWidth), color: style?.color, bold: style?.bold }];
  } else {
    const column = laneIndex >= 0 ? laneIndex : grid.shown.length - 1;
    const cellText = laneIndex >= 0 ? text : `[${row.lane}] ${text}`;
    lanes = grid.shown.flatMap((_, i) => [
      ...(i === 0 ? [] : [{ text: LANE_SEPARATOR, dim: true }]),
      i === column
        ? { text: fitEnd(cellText, grid.laneWidth), color: style?.color, bold: style?.bold }
        : { text: ' '.repeat(grid.laneWidth) },
    ]);
  }
  return [
    { text: mark, bold: true, color: 'cyan', inverse: selected },
    { text: fitEnd(formatClock(row.at, true), TIME_WIDTH - 1), dim: !selected, inverse: selected },
    { text: ' ' },
    ...lanes,
    { text: ' ' },
    { text: fitStart(truncateStart(formatRef(row.ref), grid.refWidth), grid.refWidth), dim: true },
  ];
}

/**
 * The findings block, windowed so that the selected finding and all its evidence lines
 * are in view (as many as fit, from its first line), with a count of what is above and below.
 */
export function findingLines(findings: readonly FeedItem[], selectedKey: string | null, limit: number, width = Number.POSITIVE_INFINITY): Segment[][] {
  if (limit <= 0) return [];
  const body: Segment[][] = [];
  let from = 0;
  for (const f of findings) {
    const style = severityStyle(f.severity);
    const selected = f.key === selectedKey;
    if (selected) from = body.length;
    body.push([
      { text: selected ? '› ' : '  ', bold: true, inverse: selected },
      { text: `${style.label} `, color: style.color, bold: style.bold, inverse: selected },
      { text: f.rule, color: style.color, bold: true, inverse: selected },
      { text: `  ${f.message}`, inverse: selected },
    ]);
    for (const e of f.evidence) {
      // A long path gives way from its start: the file name and line number are what `o` and the reader need.
      body.push([{ text: `      ${truncateStart(formatRef(e), Math.max(1, width - 6))}`, color: 'cyan' }, { text: e.text ? `  ${e.text}` : '', dim: true }]);
    }
  }
  const rows = limit - 1;
  let start = 0;
  if (body.length > rows) {
    // The selected finding on top, its evidence under it; near the end, the last page.
    start = Math.max(0, Math.min(from, body.length - rows));
  }
  const above = start;
  const below = Math.max(0, body.length - start - rows);
  const title: Segment[] = [
    { text: `findings (${findings.length})`, bold: true },
    { text: above > 0 ? `  ↑ ${above} lines above` : '', dim: true },
    { text: below > 0 ? `  ↓ ${below} below` : '', dim: true },
    { text: findings.length > 1 ? '  [ ] previous / next finding' : '', dim: true },
  ];
  return [title, ...body.slice(start, start + rows)];
}

/** One session's streams as lanes, its timeline with file:line on every row, and its findings' evidence. */
export function SessionDetailView({ detail, cursor, findingKey, matches, width, height }: SessionDetailViewProps) {
  if (height <= 0) return null;
  const layout = detailLayout(detail, height);
  const grid = laneGrid(detail, width);
  const selectedRow = Math.max(0, Math.min(cursor, detail.rows.length - 1));
  const start = windowStart(detail.rows.length, selectedRow, layout.timelineRows);
  const finding = detail.findings.find((f) => f.key === findingKey);
  const evidence = new Set((finding?.evidence ?? []).map(formatRef));
  const rows = detail.rows.slice(start, start + layout.timelineRows);
  const hidden = detail.lanes.length - grid.shown.length;
  const range = detail.rows.length === 0 ? 'no records' : `rows ${start + 1}–${start + rows.length} of ${detail.rows.length}`;
  const title: Segment[] = [
    { text: `session ${detail.session}`, bold: true },
    { text: detail.incarnations.length > 0 ? `  incarnation ${detail.incarnations.join(', ')}` : '', dim: true },
    { text: `  ${detail.lanes.length} streams`, dim: true },
    // Rows of lanes without a column go to the last one, tagged with their stream.
    { text: hidden > 0 ? ` (${hidden} in the last column)` : '', dim: true },
    { text: `  ${range}`, dim: true },
  ];
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Line segments={fitSegments(title, width)} />
      {height > 1 && <Line segments={fitSegments(headerSegments(grid), width)} />}
      {rows.map((row, i) => {
        // ▶ the selected row, ● the selected finding's evidence, ◆ a search match.
        const mark = start + i === selectedRow ? '▶' : evidence.has(formatRef(row.ref)) ? '●' : matches?.(row) ? '◆' : ' ';
        return <Line key={start + i} segments={fitSegments(rowSegments(row, grid, mark, start + i === selectedRow), width)} />;
      })}
      {Array.from({ length: layout.timelineRows - rows.length }, (_, i) => (
        <Line key={`pad${i}`} segments={[]} />
      ))}
      {findingLines(detail.findings, findingKey, layout.findingsLines, width).map((segs, i) => (
        <Line key={`f${i}`} segments={fitSegments(segs, width)} />
      ))}
    </Box>
  );
}
