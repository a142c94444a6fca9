// The keys, as the help overlay lists them. Kept next to the reducer's
// vocabulary so that what help says and what the keys do cannot drift far.

export interface KeyHelp {
  keys: string;
  action: string;
}

export const KEY_HELP: readonly KeyHelp[] = [
  { keys: 'tab / shift+tab', action: 'next / previous pane (findings, sessions, charts)' },
  { keys: '1 2 3', action: 'jump to findings / sessions / charts' },
  { keys: '↑ ↓  or  k j', action: 'move the selection (scroll in a session)' },
  { keys: 'PgUp PgDn', action: 'move a page' },
  { keys: 'g / G  or  Home End', action: 'first / last row' },
  { keys: 'enter', action: "open the session (on a finding: the finding's session)" },
  { keys: 'esc', action: 'back: close the session, help, or clear the filter' },
  { keys: '/', action: 'filter sessions: type, enter applies, esc cancels' },
  { keys: 's', action: 'sort sessions by the next column' },
  { keys: 'S', action: 'reverse the sort direction' },
  { keys: '?', action: 'show / hide this help' },
  { keys: 'q  or  ctrl+c', action: 'quit' },
];
