import { createContext, useContext } from 'react';
import { Text } from 'ink';
import type { Segment } from '../segments.js';

/**
 * Whether the dashboard paints: the App's `colour` prop (src/render/colour.ts decides it), for every
 * line it draws. Off, a line carries no style at all, as the text reports do without colour.
 */
export const ColourContext = createContext(true);

/** One terminal line of styled segments; callers fit the segments to the width beforehand. */
export function Line({ segments }: { segments: readonly Segment[] }) {
  const colour = useContext(ColourContext);
  // An empty Text collapses to zero rows; a blank line must still take its row.
  const parts = segments.length === 0 ? [{ text: ' ' }] : segments;
  if (!colour) return <Text wrap="truncate-end">{parts.map((s) => s.text).join('') || ' '}</Text>;
  return (
    <Text wrap="truncate-end">
      {parts.map((s, i) => (
        <Text key={i} color={s.color} bold={s.bold} dimColor={s.dim} inverse={s.inverse}>
          {s.text}
        </Text>
      ))}
    </Text>
  );
}
