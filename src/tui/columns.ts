// Table columns that adapt to the pane width: the least important columns are
// dropped first, then the one growing column takes what is left.

export interface ColumnSpec<K extends string = string> {
  key: K;
  header: string;
  /** Preferred width in cells. */
  width: number;
  /** Narrowest width still useful; defaults to `width`. */
  min?: number;
  /** Higher survives longer when space is short. */
  priority: number;
  align?: 'left' | 'right';
  /** Takes the remaining space (at most one column should). */
  grow?: boolean;
}

export interface FittedColumn<K extends string = string> extends ColumnSpec<K> {
  width: number;
}

const COLUMN_GAP = 1;

function minTotal(cols: readonly ColumnSpec[]): number {
  return cols.reduce((w, c) => w + (c.min ?? c.width), 0) + Math.max(0, cols.length - 1) * COLUMN_GAP;
}

function natTotal(cols: readonly ColumnSpec[]): number {
  return cols.reduce((w, c) => w + c.width, 0) + Math.max(0, cols.length - 1) * COLUMN_GAP;
}

export function fitColumns<K extends string>(specs: readonly ColumnSpec<K>[], width: number): FittedColumn<K>[] {
  let cols = [...specs];
  while (cols.length > 1 && minTotal(cols) > width) {
    const weakest = cols.reduce((a, b) => (b.priority < a.priority ? b : a));
    cols = cols.filter((c) => c !== weakest);
  }
  // Shrink columns towards their minimum, growing column first, until the row fits.
  const widths = cols.map((c) => c.width);
  let excess = natTotal(cols) - width;
  const shrinkOrder = cols
    .map((c, i) => ({ c, i }))
    .sort((a, b) => Number(Boolean(b.c.grow)) - Number(Boolean(a.c.grow)) || a.c.priority - b.c.priority);
  for (const { c, i } of shrinkOrder) {
    if (excess <= 0) break;
    const room = (widths[i] as number) - (c.min ?? c.width);
    const take = Math.min(room, excess);
    widths[i] = (widths[i] as number) - take;
    excess -= take;
  }
  if (excess < 0) {
    const growIndex = cols.findIndex((c) => c.grow);
    if (growIndex >= 0) widths[growIndex] = (widths[growIndex] as number) - excess;
  }
  // A single surviving column narrower than its minimum still must not overflow.
  return cols.map((c, i) => ({ ...c, width: Math.max(0, Math.min(widths[i] as number, width)) }));
}
