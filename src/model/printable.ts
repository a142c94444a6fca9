// A log line is hostile input wherever it is shown. Any value read from a log
// (a session id, an event id, a reason, a finding's message built from them)
// may hold an escape sequence that clears a terminal, sets its title or writes
// its clipboard, or a bidi override that makes a line read as something else
// (Trojan Source). These are the characters no log value may bring to a
// terminal, an HTML page or a JSON report as themselves.

/**
 * C0 and C1 controls (ESC, BEL, CSI as one byte, NEL, line breaks), bidi
 * embeddings, overrides and isolates, the directional marks, and the line and
 * paragraph separators.
 */
// eslint-disable-next-line no-control-regex
export const HOSTILE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `\u001b` for ESC: the escape visible as text, so that the value still reads as itself. */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A log value (or text holding log values) as it may be shown: every hostile character escaped. */
export function printable(s: string): string {
  return s.replace(HOSTILE_CHARS, unicodeEscape);
}

/** Hostile characters JSON.stringify leaves as they are (it escapes C0 only). */
// eslint-disable-next-line no-control-regex
const RAW_IN_JSON = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text that reads back to the same value, with no hostile character as
 * itself: a report printed to a terminal (`jq`, `less`, `cat`) cannot be
 * steered by the logs it quotes. Only string contents can hold these, and
 * there a \u escape means the same character.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(RAW_IN_JSON, unicodeEscape);
}
