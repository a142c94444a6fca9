import type { Pane } from '../dashboardState.js';
import { fitSegments, type Segment } from '../segments.js';
import { Line } from './Line.js';

export interface PaneTab {
  pane: Pane;
  label: string;
}

export interface PaneTabsProps {
  tabs: readonly PaneTab[];
  focused: Pane;
  /** In the detail view no pane has focus: the tabs are shown as a breadcrumb. */
  context?: string;
  width: number;
}

/** The pane switcher: the focused pane in brackets (readable without colour), highlighted. */
export function PaneTabs({ tabs, focused, context, width }: PaneTabsProps) {
  const segments: Segment[] = tabs.flatMap((t, i) => {
    const active = t.pane === focused && context === undefined;
    return [
      ...(i === 0 ? [] : [{ text: '│', dim: true }]),
      active ? { text: `[${t.label}]`, bold: true, inverse: true } : { text: ` ${t.label} `, dim: context !== undefined },
    ];
  });
  if (context !== undefined) segments.push({ text: `  › ${context}`, bold: true, color: 'cyan' });
  return <Line segments={fitSegments(segments, width)} />;
}
