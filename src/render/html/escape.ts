import { printable, STEERING_CHARS, unicodeEscape } from '../../model/printable.js';

// Everything the report quotes from a log is hostile input: a field may hold
// `<script>` or `"><img onerror=…>`. Text goes through `text()`, attribute
// values through `attr()`, and data for the inline script through
// `jsonForScript()`; log text is never put anywhere else (ids, hrefs and
// class names are built from our own indices and rule ids).

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Characters HTML cannot carry as text: C0 controls other than tab, newline
 * and carriage return, and lone surrogates. Shown as U+FFFD so that a line
 * holding them still renders, and visibly differs from the clean one.
 */
const UNREPRESENTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text content for HTML and SVG: safe in element content and in quoted attribute values. A bidi
 * override, isolate or C1 control would be obeyed rather than shown (reordering what a reader
 * sees): shown escaped (`\u202e`), as the text report shows it.
 */
export function text(s: string | number | null | undefined): string {
  if (s === null || s === undefined) return '';
  return String(s).replace(UNREPRESENTABLE, '\ufffd').replace(STEERING_CHARS, unicodeEscape).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A quoted attribute value. */
export function attr(s: string | number): string {
  return `"${text(s)}"`;
}

/**
 * JSON for a `<script type="application/json">` data block. Every `<`, `>` and
 * `&` is written as a \u escape, so no `</script>` or `<!--` can end or change
 * the block, whatever a log line holds; JSON.parse reads the escapes back
 * (JSON.stringify already escapes controls and lone surrogates).
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value, shownAsText)
    .replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The script shows the data's strings as text: each is printable first, as text() would show it. */
function shownAsText(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? printable(value) : value;
}
