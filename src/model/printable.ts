// A log line is hostile input wherever it is shown. Any value read from a log
// (a session id, an event id, a reason, a finding's message built from them)
// may hold an escape sequence that clears a terminal, sets its title or writes
// its clipboard, or a bidi override that makes a line read as something else
// (Trojan Source). These are the characters no log value may bring to a
// terminal, an HTML page or a JSON report as themselves.

/**
 * Beyond C0: DEL and the C1 controls (CSI, NEL as one byte), bidi embeddings, overrides and isolates,
 * directional marks (the Arabic letter mark too), line and paragraph separators, and the invisible
 * characters (zero-width space, joiners, word joiner, invisible operators, BOM): `sess-1` and
 * `sess-1` followed by U+200B are two sessions, and a reader must see that they are.
 */
const STEERING_CLASS = '\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';

/** The characters JSON.stringify and an HTML page leave as they are (both deal with C0 themselves). */
export const STEERING_CHARS = new RegExp(`[${STEERING_CLASS}]`, 'g');

/** Every hostile character: the C0 controls (ESC, BEL, line breaks, tab) and STEERING_CHARS. */
export const HOSTILE_CHARS = new RegExp(`[\\u0000-\\u001f${STEERING_CLASS}]`, 'g');

/** `\u001b` for ESC: the escape visible as text, so that the value still reads as itself. */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A log value (or text holding log values) as it may be shown: every hostile character escaped. */
export function printable(s: string): string {
  return s.replace(HOSTILE_CHARS, unicodeEscape);
}

/**
 * JSON text that reads back to the same value, with no hostile character as
 * itself: a report printed to a terminal (`jq`, `less`, `cat`) cannot be
 * steered by the logs it quotes. JSON.stringify escapes C0 only; the rest can
 * stand only inside strings, where a \u escape means the same character.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(STEERING_CHARS, unicodeEscape);
}
