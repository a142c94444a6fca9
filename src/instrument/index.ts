// resumescope/instrument: make a server built on @modelcontextprotocol/sdk 1.x
// (StreamableHTTPServerTransport) or on the 2.x packages (@modelcontextprotocol/server
// with @modelcontextprotocol/node), stateful mode, write the resumption log
// that resumescope analyzes (the README, "Input").

export { createRecorder, toLogLine, type Recorder, type RecorderOptions, type RecordSink } from './recorder.js';
export { instrumentTransport } from './transport.js';
export type { EventStoreLike, TransportLike } from './sdk-types.js';
export { instrumentEventStore } from './event-store.js';
export { instrumentRequests, instrumentHandler, type InstrumentRequestsOptions, type NextFunction } from './middleware.js';
export { sha256Hex } from './jsonrpc.js';
export { canonicalJson } from '../model/canonical-json.js';
export { SDK_STANDALONE_STREAM_ID } from './tracker.js';
export { NOT_A_RECORD, RECORDS_DROPPED } from './records.js';
export type { LoggedLine, RecordFields, ResumptionDropNote, ResumptionNote, ResumptionRecord, RpcKind } from './records.js';
