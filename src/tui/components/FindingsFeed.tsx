import { Box } from 'ink';
import { fitColumns, type ColumnSpec, type FittedColumn } from '../columns.js';
import type { FeedItem } from '../view-model.js';
import { fitSegments, type Segment } from '../segments.js';
import { windowStart } from '../selectors.js';
import { severityStyle } from '../severityStyle.js';
import { cellWidth, fitEnd, formatClock } from '../safe-text.js';
import { Line } from './Line.js';

export interface FindingsFeedProps {
  /** Already in display order (newest first). */
  items: readonly FeedItem[];
  selected: number;
  width: number;
  height: number;
  /** The focused pane shows its selection as a highlighted bar. */
  focused: boolean;
  /** Findings matching the search are marked. */
  matches?: (item: FeedItem) => boolean;
}

type FeedColumn = 'time' | 'severity' | 'rule' | 'session' | 'message';

const MARKER_WIDTH = 2;
const LONGEST_RULE_ID = 29;

/**
 * What tells one finding from the next comes first when the pane is narrow: severity, rule and the
 * session id (never cut below its natural width, up to 14 cells: ids that differ in their last
 * characters must not read alike), before the message, which the drill-down shows whole, and the time.
 */
function columnSpecs(items: readonly FeedItem[]): ColumnSpec<FeedColumn>[] {
  const longest = (f: (i: FeedItem) => string) => items.reduce((w, i) => Math.max(w, cellWidth(f(i))), 0);
  const session = Math.min(14, Math.max(4, longest((i) => i.session ?? '—')));
  return [
    { key: 'time', header: 'time', width: 8, priority: 1 },
    { key: 'severity', header: 'sev', width: 4, priority: 6 },
    { key: 'rule', header: 'rule', width: Math.min(LONGEST_RULE_ID, Math.max(4, longest((i) => i.rule))), min: 12, priority: 5 },
    { key: 'session', header: 'session', width: session, priority: 4 },
    { key: 'message', header: 'message', width: 40, min: 10, priority: 3, grow: true },
  ];
}

function cellText(item: FeedItem, key: FeedColumn): string {
  switch (key) {
    case 'time':
      return formatClock(item.at);
    case 'severity':
      return severityStyle(item.severity).label;
    case 'rule':
      return item.rule;
    case 'session':
      return item.session ?? '—';
    case 'message':
      return item.message;
  }
}

function rowSegments(item: FeedItem, columns: readonly FittedColumn<FeedColumn>[], selected: boolean, focused: boolean, match: boolean): Segment[] {
  const style = severityStyle(item.severity);
  const highlight = selected && focused;
  const cells: Segment[] = columns.flatMap((c, i) => {
    const text = fitEnd(cellText(item, c.key), c.width);
    const coloured = c.key === 'severity' || c.key === 'rule';
    const seg: Segment = {
      text,
      color: coloured ? style.color : undefined,
      bold: coloured && style.bold,
      dim: c.key === 'time' || c.key === 'session' ? true : undefined,
      inverse: highlight,
    };
    return i === 0 ? [seg] : [{ text: ' ', inverse: highlight }, seg];
  });
  return [{ text: `${selected ? '›' : ' '}${match ? '◆' : ' '}`, bold: selected, color: match ? 'cyan' : undefined, inverse: highlight }, ...cells];
}

/** Findings, newest first, one per line, coloured by severity; the selected one marked. */
export function FindingsFeed({ items, selected, width, height, focused, matches }: FindingsFeedProps) {
  if (height <= 0) return null;
  if (items.length === 0) {
    return (
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <Line segments={fitSegments([{ text: '  no findings (yet, or none passes the filters)', dim: true }], width)} />
      </Box>
    );
  }
  const columns = fitColumns(columnSpecs(items), width - MARKER_WIDTH);
  const start = windowStart(items.length, selected, height);
  const visible = items.slice(start, start + height);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {visible.map((item, i) => (
        <Line key={item.key} segments={fitSegments(rowSegments(item, columns, start + i === selected, focused, matches?.(item) ?? false), width)} />
      ))}
    </Box>
  );
}
