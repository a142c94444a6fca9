import { fitSegments, type Segment } from '../segments.js';
import { Line } from './Line.js';

export type StatusMode = 'dashboard' | 'detail' | 'help' | 'filter';

export interface StatusBarProps {
  mode: StatusMode;
  /** A one-off message (e.g. why enter did nothing), shown before the hints. */
  notice: string | null;
  width: number;
}

const HINTS: Record<StatusMode, string> = {
  dashboard: 'tab pane · ↑↓ move · enter open · / filter · s sort · ? help · q quit',
  detail: 'esc back · ↑↓ scroll · PgUp/PgDn page · ? help · q quit',
  help: '? or esc close · q quit',
  filter: 'type to filter sessions · enter apply · esc cancel',
};

/** The bottom line: what the keys do right now. */
export function StatusBar({ mode, notice, width }: StatusBarProps) {
  const segments: Segment[] = [
    ...(notice ? [{ text: `${notice}  `, color: 'yellow', bold: true }] : []),
    { text: HINTS[mode], dim: true },
  ];
  return <Line segments={fitSegments(segments, width)} />;
}
