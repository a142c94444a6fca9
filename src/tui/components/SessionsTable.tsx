import { Box } from 'ink';
import { fitColumns, type ColumnSpec, type FittedColumn } from '../columns.js';
import type { DecisionTriple, SessionRow, SessionState } from '../view-model.js';
import { fitSegments, type Segment } from '../segments.js';
import { windowStart, type SortColumn, type SortOrder } from '../selectors.js';
import { cellWidth, fitEnd, fitStart, formatClock, formatCount } from '../safe-text.js';
import { Line } from './Line.js';

export interface SessionsTableProps {
  /** Already filtered and sorted. */
  rows: readonly SessionRow[];
  /** Sessions before filtering, for "3 of 12". */
  total: number;
  selected: number;
  sort: SortOrder;
  /** The applied filter. */
  filter: string;
  /** The filter being typed, or null. */
  draft: string | null;
  width: number;
  height: number;
  focused: boolean;
}

type TableColumn = SortColumn | 'last';

const MARKER_WIDTH = 2;
/** The filter/status line and the column header line. */
export const SESSIONS_TABLE_CHROME = 2;

const STATE_COLOURS: Record<SessionState, string> = { live: 'green', ended: 'gray', forked: 'red', lost: 'magenta', unknown: 'yellow' };
const DECISION_COLOURS: Record<string, string> = { resume: 'green', attach: 'cyan', fresh: 'yellow', reject: 'red' };

const SORT_LABELS: Record<SortColumn, string> = {
  lastSeen: 'last seen',
  findings: 'findings',
  session: 'session',
  state: 'state',
  streams: 'streams',
  replayed: 'replayed',
  reemitted: 're-emitted',
};

/** "5 → resume 200": the Last-Event-ID presented, the decision, the status. ∅ when no Last-Event-ID. */
function formatTriple(t: DecisionTriple | null): string {
  if (!t) return '—';
  return `${t.lastEventId ?? '∅'} → ${t.decision}${t.status === undefined ? '' : ` ${t.status}`}`;
}

function columnSpecs(rows: readonly SessionRow[]): ColumnSpec<TableColumn>[] {
  const longestSession = rows.reduce((w, r) => Math.max(w, cellWidth(r.session)), 7);
  return [
    { key: 'session', header: 'session', width: Math.min(36, longestSession + 1), min: 8, priority: 10, grow: true },
    { key: 'state', header: 'state', width: 7, priority: 8 },
    { key: 'streams', header: 'strm', width: 5, priority: 5, align: 'right' },
    { key: 'last', header: 'last id → decision', width: 20, min: 14, priority: 9 },
    { key: 'replayed', header: 'repl', width: 5, priority: 6, align: 'right' },
    { key: 'reemitted', header: 'reem', width: 5, priority: 4, align: 'right' },
    { key: 'findings', header: 'find', width: 5, priority: 7, align: 'right' },
    { key: 'lastSeen', header: 'seen', width: 8, priority: 3 },
  ];
}

function cellText(row: SessionRow, key: TableColumn): string {
  switch (key) {
    case 'session':
      return row.session;
    case 'state':
      return row.state;
    case 'last':
      return formatTriple(row.lastTriple);
    case 'lastSeen':
      return formatClock(row.lastSeen);
    default:
      return formatCount(row[key]);
  }
}

function cellColour(row: SessionRow, key: TableColumn): string | undefined {
  if (key === 'state') return STATE_COLOURS[row.state];
  if (key === 'last') return row.lastTriple ? DECISION_COLOURS[row.lastTriple.decision] : undefined;
  if (key === 'findings') return row.findings > 0 ? 'red' : undefined;
  return undefined;
}

function fit(text: string, c: FittedColumn<TableColumn>): string {
  return c.align === 'right' ? fitStart(text, c.width) : fitEnd(text, c.width);
}

function headerSegments(columns: readonly FittedColumn<TableColumn>[], sort: SortOrder): Segment[] {
  const arrow = sort.descending ? '▼' : '▲';
  const cells = columns.map((c) => {
    const sorted = c.key === sort.column;
    return { text: fit(sorted ? `${c.header}${arrow}` : c.header, c), bold: true, color: sorted ? 'cyan' : undefined };
  });
  return [{ text: ' '.repeat(MARKER_WIDTH) }, ...cells.flatMap((s, i) => (i === 0 ? [s] : [{ text: ' ' }, s]))];
}

function rowSegments(row: SessionRow, columns: readonly FittedColumn<TableColumn>[], selected: boolean, focused: boolean): Segment[] {
  const inverse = selected && focused;
  const cells = columns.flatMap((c, i) => {
    const seg: Segment = { text: fit(cellText(row, c.key), c), color: cellColour(row, c.key), inverse };
    return i === 0 ? [seg] : [{ text: ' ', inverse }, seg];
  });
  return [{ text: selected ? '› ' : '  ', bold: selected, inverse }, ...cells];
}

function statusSegments(p: SessionsTableProps): Segment[] {
  const sortText = `sort: ${SORT_LABELS[p.sort.column]} ${p.sort.descending ? '▼' : '▲'}`;
  if (p.draft !== null) {
    return [
      { text: 'filter: ', color: 'cyan', bold: true },
      { text: `${p.draft}▏` },
      { text: `  ${p.rows.length} of ${p.total}`, dim: true },
    ];
  }
  if (p.filter !== '') {
    return [
      { text: 'filter: ', color: 'cyan' },
      { text: p.filter, bold: true },
      { text: `  ${p.rows.length} of ${p.total} sessions  ${sortText}`, dim: true },
    ];
  }
  return [{ text: `${p.total} sessions  ${sortText}`, dim: true }];
}

/** Sessions with their state, streams, last decision and counters; filter and sort shown on top. */
export function SessionsTable(props: SessionsTableProps) {
  const { rows, selected, width, height, focused, sort } = props;
  if (height <= 0) return null;
  const columns = fitColumns(columnSpecs(rows), width - MARKER_WIDTH);
  const bodyHeight = Math.max(0, height - SESSIONS_TABLE_CHROME);
  const start = windowStart(rows.length, selected, bodyHeight);
  const visible = rows.slice(start, start + bodyHeight);
  const empty =
    props.total === 0 ? 'no sessions yet' : `no session matches "${props.draft ?? props.filter}"`;
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Line segments={fitSegments(statusSegments(props), width)} />
      {height > 1 && <Line segments={fitSegments(headerSegments(columns, sort), width)} />}
      {rows.length === 0 && bodyHeight > 0 && <Line segments={fitSegments([{ text: `  ${empty}`, dim: true }], width)} />}
      {visible.map((row, i) => (
        <Line key={row.session} segments={fitSegments(rowSegments(row, columns, start + i === selected, focused), width)} />
      ))}
    </Box>
  );
}
