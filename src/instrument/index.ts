// resumescope/instrument: make a server built on @modelcontextprotocol/sdk
// (StreamableHTTPServerTransport, stateful mode) write the resumption log
// that resumescope analyzes (the README, "Input").

export { createRecorder, type Recorder, type RecorderOptions, type RecordSink } from './recorder.js';
export { instrumentEventStore } from './event-store.js';
export { instrumentRequests, instrumentHandler, type InstrumentRequestsOptions, type NextFunction } from './middleware.js';
export { canonicalJson, sha256Hex } from './jsonrpc.js';
export { SDK_STANDALONE_STREAM_ID } from './tracker.js';
export type { RecordFields, ResumptionRecord, RpcKind } from './records.js';
