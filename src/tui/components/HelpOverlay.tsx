import { Box } from 'ink';
import { KEY_HELP } from '../keymap.js';
import { fitSegments, type Segment } from '../segments.js';
import { cellWidth, fitEnd } from '../safe-text.js';
import { Line } from './Line.js';

export interface HelpOverlayProps {
  width: number;
  height: number;
  /** First key shown, when the terminal is too short for all of them (j / k scroll). */
  scroll?: number;
}

/** The title line. */
export const HELP_CHROME = 1;

/** Every key, one per line; shown in place of the panes until ? or esc. */
export function HelpOverlay({ width, height, scroll = 0 }: HelpOverlayProps) {
  if (height <= 0) return null;
  const keyWidth = KEY_HELP.reduce((w, k) => Math.max(w, cellWidth(k.keys)), 0);
  const rows = Math.max(0, height - HELP_CHROME);
  const start = Math.max(0, Math.min(scroll, KEY_HELP.length - rows));
  const shown = KEY_HELP.slice(start, start + rows);
  const more = KEY_HELP.length > rows ? `  keys ${start + 1}–${start + shown.length} of ${KEY_HELP.length}, j k scroll` : '';
  const lines: Segment[][] = [
    [{ text: 'keys', bold: true }, { text: `  (? or esc closes)${more}`, dim: true }],
    ...shown.map((k) => [{ text: `  ${fitEnd(k.keys, keyWidth)}  `, color: 'cyan' }, { text: k.action }]),
  ];
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.map((segs, i) => (
        <Line key={i} segments={fitSegments(segs, width)} />
      ))}
    </Box>
  );
}
