import { Box } from 'ink';
import { KEY_HELP } from '../keymap.js';
import { fitSegments, type Segment } from '../segments.js';
import { cellWidth, fitEnd } from '../text.js';
import { Line } from './Line.js';

export interface HelpOverlayProps {
  width: number;
  height: number;
}

/** Every key, one per line; shown in place of the panes until ? or esc. */
export function HelpOverlay({ width, height }: HelpOverlayProps) {
  if (height <= 0) return null;
  const keyWidth = KEY_HELP.reduce((w, k) => Math.max(w, cellWidth(k.keys)), 0);
  const lines: Segment[][] = [
    [{ text: 'keys', bold: true }, { text: '  (? or esc closes)', dim: true }],
    ...KEY_HELP.map((k) => [{ text: `  ${fitEnd(k.keys, keyWidth)}  `, color: 'cyan' }, { text: k.action }]),
  ];
  const shown = lines.length <= height ? lines : [...lines.slice(0, height - 1), [{ text: '  … (taller terminal shows all keys)', dim: true }]];
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {shown.map((segs, i) => (
        <Line key={i} segments={fitSegments(segs, width)} />
      ))}
    </Box>
  );
}
