import { Box } from 'ink';
import { fitSegments } from '../segments.js';
import { formatCount } from '../safe-text.js';
import { Line } from './Line.js';

export interface LoadingProps {
  /** Lines read so far, over every source. */
  lines: number;
  /** The source being read. */
  source: string;
  /** Reading the logs into the store, then judging them. */
  phase: 'reading' | 'judging';
  width: number;
  /** A key other than q was typed: say it does nothing yet, so the user is not left guessing. */
  keyIgnored?: boolean;
}

/** What `tui` shows while a large log is read and judged, instead of a blank screen. */
export function Loading({ lines, source, phase, width, keyIgnored = false }: LoadingProps) {
  const what = phase === 'reading' ? `loading ${formatCount(lines)} lines…` : `judging ${formatCount(lines)} lines…`;
  return (
    <Box flexDirection="column" width={width}>
      <Line segments={fitSegments([{ text: 'resumescope', bold: true }, { text: `  ${what}`, color: 'cyan' }], width)} />
      <Line segments={fitSegments([{ text: phase === 'reading' ? `  ${source}` : '  the dashboard opens when this is done', dim: true }], width)} />
      {keyIgnored && <Line segments={fitSegments([{ text: '  keys work once the dashboard opens; q quits now', color: 'yellow' }], width)} />}
    </Box>
  );
}
