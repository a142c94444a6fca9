import { Box } from 'ink';
import type { RejectedLine } from '../view-model.js';
import { fitSegments, type Segment } from '../segments.js';
import { formatCount, truncateStart } from '../safe-text.js';
import { Line } from './Line.js';

export interface RejectedViewProps {
  /** The page in view, starting at the `start`-th rejected line. */
  lines: readonly RejectedLine[];
  start: number;
  total: number;
  selected: number;
  width: number;
  height: number;
}

/** The title line. */
export const REJECTED_CHROME = 1;

const MAX_REF_WIDTH = 28;

/** Lines the reader could not take as records: where, why, and how they start. Kept, never dropped. */
export function RejectedView({ lines, start, total, selected, width, height }: RejectedViewProps) {
  if (height <= 0) return null;
  const title: Segment[] = [
    { text: `rejected lines (${formatCount(total)})`, bold: true },
    { text: '  esc or x closes · o opens the line', dim: true },
  ];
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Line segments={fitSegments(title, width)} />
      {lines.slice(0, height - REJECTED_CHROME).map((l, i) => {
        const on = start + i === selected;
        const ref = truncateStart(`${l.file}:${l.line}`, Math.min(MAX_REF_WIDTH, Math.floor(width / 3)));
        return (
          <Line
            key={start + i}
            segments={fitSegments(
              [
                { text: on ? '› ' : '  ', bold: on, inverse: on },
                { text: ref, color: 'cyan', inverse: on },
                { text: `  ${l.reason}`, color: 'red', inverse: on },
                { text: `  ${l.text}`, dim: true, inverse: on },
              ],
              width,
            )}
          />
        );
      })}
    </Box>
  );
}
