import { cellWidth, sanitize, truncateEnd } from './safe-text.js';

/** A run of text with one style: rows are built from these, then fitted to a width. */
export interface Segment {
  text: string;
  color?: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
}

/** Keep the segments that fit in `width` cells, cutting the last one that does not. */
export function fitSegments(segments: readonly Segment[], width: number): Segment[] {
  const out: Segment[] = [];
  let left = width;
  for (const seg of segments) {
    if (left <= 0) break;
    // Log text reaches here: no control character may steer the terminal.
    const text = sanitize(seg.text);
    const w = cellWidth(text);
    if (w <= left) {
      out.push(text === seg.text ? seg : { ...seg, text });
      left -= w;
    } else {
      out.push({ ...seg, text: truncateEnd(text, left) });
      break;
    }
  }
  return out;
}
