// The keys, as the help overlay lists them. Kept next to the reducer's
// vocabulary so that what help says and what the keys do cannot drift far;
// a test presses every key listed here.

export interface KeyHelp {
  keys: string;
  action: string;
}

export const KEY_HELP: readonly KeyHelp[] = [
  { keys: 'tab / shift+tab', action: 'next / previous pane (findings, sessions, charts)' },
  { keys: '1 2 3', action: 'jump to findings / sessions / charts' },
  { keys: '↑ ↓  k j  PgUp PgDn', action: 'move the selection (in a session: the timeline row)' },
  { keys: 'g G  Home End', action: 'first / last row' },
  { keys: 'enter', action: "open the session, at the finding's evidence" },
  { keys: 'esc', action: 'back: close a view, clear the filters' },
  { keys: '/', action: 'search findings (in a session: timeline and findings)' },
  { keys: 'n N', action: 'next / previous match of the search' },
  { keys: 'f', action: 'filter sessions (also / on the sessions pane)' },
  { keys: 's S', action: 'sort sessions by the next column / reverse it' },
  { keys: 'v', action: 'severity floor: all → warning+ → error+ → critical' },
  { keys: 'r R', action: 'only the next / previous rule (then all rules)' },
  { keys: '[ ]', action: 'in a session: previous / next finding' },
  { keys: 'o', action: 'open the evidence line in $EDITOR or $PAGER' },
  { keys: 'p', action: 'pause / resume live updates (watch)' },
  { keys: 'x', action: 'rejected lines (o opens one)' },
  { keys: '?', action: 'show / hide this help (j k scroll it)' },
  { keys: 'q  ctrl+c', action: 'quit' },
];
