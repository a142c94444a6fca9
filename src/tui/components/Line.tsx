import { Text } from 'ink';
import type { Segment } from '../segments.js';

/** One terminal line of styled segments; callers fit the segments to the width beforehand. */
export function Line({ segments }: { segments: readonly Segment[] }) {
  // An empty Text collapses to zero rows; a blank line must still take its row.
  const parts = segments.length === 0 ? [{ text: ' ' }] : segments;
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
