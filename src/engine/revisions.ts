// What each MCP protocol revision allows on the Streamable HTTP transport, as
// data: the decision table and the what-if read these fields instead of
// comparing version strings. Sources: the `transports` page of each revision
// and the 2026-07-28 changelog (SEP-2567 removed sessions, SEP-2575 the
// initialize handshake; that revision's transport drops the GET stream and
// `Last-Event-ID` resumption: "a server ... SHOULD respond 405 to GET, ignore
// Mcp-Session-Id and Last-Event-ID").

/** The revisions the engine knows, oldest first. */
export const PROTOCOL_REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

export type ProtocolRevision = (typeof PROTOCOL_REVISIONS)[number];

/** The behaviour of a server that logs no protocol version: 2025-11-25, as the engine has always decided. */
export const DEFAULT_REVISION: ProtocolRevision = '2025-11-25';

export interface RevisionRules {
  /** `initialize` exists: it negotiates the version (and, with `sessions`, mints the session). */
  initialize: boolean;
  /** The server mints `Mcp-Session-Id` and honours it on later requests. */
  sessions: boolean;
  /** A GET opens the session's standalone stream, or resumes a stream; otherwise it is a 405. */
  getStream: boolean;
  /** `Last-Event-ID` resumes a stream (replay after that id); otherwise the header is ignored. */
  resumption: boolean;
  /** Priming events: an id with empty data, sent first so that a client can resume before any message. */
  priming: boolean;
  /** Polling: the server may close a stream after an id and `retry`, and the client resumes it. */
  polling: boolean;
  /**
   * What a client does when a response stream breaks before its response: resume the stream
   * (`Last-Event-ID`), or re-issue the request under a new id (nothing can resume it, so the
   * in-flight request is lost and a tool that is not idempotent runs again).
   */
  brokenStream: 'resume' | 'reissue';
}

const LEGACY: RevisionRules = Object.freeze({
  initialize: true,
  sessions: true,
  getStream: true,
  resumption: true,
  priming: false,
  polling: false,
  brokenStream: 'resume',
});

export const REVISION_RULES: Readonly<Record<ProtocolRevision, Readonly<RevisionRules>>> = Object.freeze({
  '2025-03-26': LEGACY,
  '2025-06-18': LEGACY,
  '2025-11-25': Object.freeze({ ...LEGACY, priming: true, polling: true }),
  '2026-07-28': Object.freeze({
    initialize: false,
    sessions: false,
    getStream: false,
    resumption: false,
    priming: false,
    polling: false,
    brokenStream: 'reissue',
  }),
});

export function isProtocolRevision(value: unknown): value is ProtocolRevision {
  return typeof value === 'string' && (PROTOCOL_REVISIONS as readonly string[]).includes(value);
}

/**
 * The known revision whose rules a logged version follows: itself; for another date
 * (YYYY-MM-DD), the latest known revision at or before it (a later revision keeps the
 * stateless rules until the table says otherwise), or the first one for a date before
 * Streamable HTTP existed. Undefined for anything that is not a date: not a version the
 * engine can place.
 */
export function revisionOf(version: string | undefined): ProtocolRevision | undefined {
  if (version === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(version)) return undefined;
  return PROTOCOL_REVISIONS.findLast((r) => r <= version) ?? PROTOCOL_REVISIONS[0];
}
