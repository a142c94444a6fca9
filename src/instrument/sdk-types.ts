// The shapes of the SDK objects the instrumentation touches, written
// structurally: the declarations must not name @modelcontextprotocol/sdk 1.x,
// so that a server on the 2.x packages (@modelcontextprotocol/server with
// @modelcontextprotocol/node) type-checks without it. Both SDKs' EventStore
// and Streamable HTTP transports fit these.

/** The EventStore a Streamable HTTP server transport is given (SDK 1.x and 2.x). `M` is the SDK's JSON-RPC message type. */
export interface EventStoreLike<M = unknown> {
  storeEvent(streamId: string, message: M): Promise<string>;
  getStreamIdForEventId?(eventId: string): Promise<string | undefined>;
  replayEventsAfter(lastEventId: string, opts: { send: (eventId: string, message: M) => Promise<void> }): Promise<string>;
}

/** What `instrumentTransport` needs of a transport: its session id and its close callback. */
export interface TransportLike {
  readonly sessionId?: string | undefined;
  onclose?: (() => void) | undefined;
}
