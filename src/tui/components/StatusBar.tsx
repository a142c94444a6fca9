import { fitSegments, type Segment } from '../segments.js';
import { Line } from './Line.js';

export type StatusMode = 'dashboard' | 'detail' | 'help' | 'filter' | 'search' | 'rejected';

export interface StatusBarProps {
  mode: StatusMode;
  /** A one-off message (e.g. why enter did nothing), shown before the hints. */
  notice: string | null;
  /** The search being typed, shown as a prompt in search mode. */
  draft?: string | null;
  width: number;
}

const HINTS: Record<StatusMode, string> = {
  dashboard: 'tab pane · enter open · / search · n N next · v sev · r rule · o open line · ? help · q quit',
  detail: 'esc back · ↑↓ row · [ ] finding · / search · n N · o open line · ? help',
  help: '? or esc close · j k scroll · q quit',
  filter: 'type to filter sessions · enter apply · esc cancel',
  search: 'enter search · esc cancel',
  rejected: 'esc back · ↑↓ move · o open the line · q quit',
};

/** The bottom line: what the keys do right now. */
export function StatusBar({ mode, notice, draft, width }: StatusBarProps) {
  const segments: Segment[] = [
    ...(mode === 'search' ? [{ text: `/${draft ?? ''}▏  `, bold: true }] : []),
    ...(notice ? [{ text: `${notice}  `, color: 'yellow', bold: true }] : []),
    { text: HINTS[mode], dim: true },
  ];
  return <Line segments={fitSegments(segments, width)} />;
}
