import { HOSTILE_CHARS } from '../model/printable.js';

// Width-safe text helpers. Everything the dashboard prints goes through these,
// so no line can outgrow its pane and no log content can steer the terminal.

// Log lines are untrusted input: a control character (ESC above all) or a bidi
// override in a message or evidence line must never reach the terminal as
// itself. A pane counts cells, so each becomes one blank cell, not an escape.
export function sanitize(s: string): string {
  return s.replace(HOSTILE_CHARS, ' ');
}

// Wide (double-cell) code points: CJK, Hangul, full-width forms, most emoji.
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function charWidth(ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp >= 0x300 && cp <= 0x36f) return 0; // combining marks
  return isWide(cp) ? 2 : 1;
}

/** Terminal cells a (sanitized) string occupies. */
export function cellWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += charWidth(ch);
  return w;
}

/** Cut to at most `width` cells, marking the cut with an ellipsis. */
export function truncateEnd(s: string, width: number): string {
  const clean = sanitize(s);
  if (width <= 0) return '';
  if (cellWidth(clean) <= width) return clean;
  let out = '';
  let w = 0;
  for (const ch of clean) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/** Cut from the left, for paths whose end (file name, line) is what matters. */
export function truncateStart(s: string, width: number): string {
  const clean = sanitize(s);
  if (width <= 0) return '';
  if (cellWidth(clean) <= width) return clean;
  const chars = [...clean];
  let out = '';
  let w = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const ch = chars[i] as string;
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out = ch + out;
    w += cw;
  }
  return '…' + out;
}

/** Exactly `width` cells: truncated, then padded. */
export function fitEnd(s: string, width: number): string {
  const t = truncateEnd(s, width);
  return t + ' '.repeat(Math.max(0, width - cellWidth(t)));
}

/** Exactly `width` cells, right-aligned (numbers). */
export function fitStart(s: string, width: number): string {
  const t = truncateEnd(s, width);
  return ' '.repeat(Math.max(0, width - cellWidth(t))) + t;
}

/** "10:00:02" (or "10:00:02.123") from an RFC 3339 time; anything else is shown as given. */
export function formatClock(at: string, withMillis = false): string {
  const m = /T(\d{2}:\d{2}:\d{2})(?:[.,](\d+))?/.exec(at);
  if (!m) return at;
  if (!withMillis) return m[1] as string;
  return `${m[1]}.${(m[2] ?? '').padEnd(3, '0').slice(0, 3)}`;
}

/** 1234567 → "1,234,567" (locale-independent, so frames are the same everywhere). */
export function formatCount(n: number): string {
  const sign = n < 0 ? '-' : '';
  const digits = String(Math.trunc(Math.abs(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatRate(perSec: number): string {
  if (!Number.isFinite(perSec) || perSec <= 0) return '0';
  return perSec < 10 ? perSec.toFixed(1) : formatCount(Math.round(perSec));
}
