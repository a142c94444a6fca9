import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CreateMessageResultSchema, ElicitResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { instrumentEventStore, instrumentTransport, type EventStoreLike, type Recorder } from '../../../src/instrument/index.js';
import { DYNAMIC_TOOLS, ELICIT_SCHEMA, SERVER_CAPABILITIES, SIMPLE_PROMPT, STATIC_RESOURCES, STATIC_TOOLS, elicitationTool, promptWithArguments, samplingTool, type ToolKit } from './features.js';
import { hostMcp, localHosts, type McpSession, type RunningServer, type TrackCall } from './host.js';

// The conformance server on @modelcontextprotocol/sdk 1.x: McpServer and
// StreamableHTTPServerTransport (stateful, an event store, DNS-rebinding
// protection, a retry interval for SEP-1699 polling).

export interface ServerOptions {
  recorder: Recorder;
  /** Called once per session; return one store for all to model a server-wide store. */
  eventStore: () => EventStoreLike<unknown>;
  retryIntervalMs?: number;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function startServerV1(opts: ServerOptions): Promise<RunningServer> {
  return hostMcp(opts.recorder, async (port, onInitialized, onEnd, track) => {
    const server = new McpServer({ name: 'resumescope-conformance-v1', version: '1.0.0' }, { capabilities: SERVER_CAPABILITIES });
    let transport: StreamableHTTPServerTransport | undefined;
    const session: McpSession = {
      handleRequest: (req, res) => transport!.handleRequest(req, res),
      get sessionId() {
        return transport?.sessionId;
      },
      notify: (text) => server.server.notification({ method: 'notifications/message', params: { level: 'info', data: text } }),
      close: () => server.close(),
    };
    transport = instrumentTransport(
      new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: instrumentEventStore(opts.eventStore(), opts.recorder) as EventStore,
        enableDnsRebindingProtection: true,
        allowedHosts: localHosts(port),
        ...(opts.retryIntervalMs !== undefined && { retryInterval: opts.retryIntervalMs }),
        onsessioninitialized: (id) => onInitialized(id, session),
        onsessionclosed: (id) => onEnd(id),
      }),
      opts.recorder,
    );
    const t = transport;
    t.onclose = () => {
      if (t.sessionId !== undefined) onEnd(t.sessionId);
    };
    register(server, t, track);
    await server.connect(t);
    return session;
  });
}

function kitOf(extra: Extra, transport: StreamableHTTPServerTransport): ToolKit {
  return {
    notify: (n) => extra.sendNotification(n as Parameters<Extra['sendNotification']>[0]),
    progressToken: extra._meta?.progressToken,
    closeStream: () => transport.closeSSEStream(extra.requestId),
    sample: (prompt) =>
      extra.sendRequest(
        { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 } },
        CreateMessageResultSchema,
      ),
    elicit: (message) => extra.sendRequest({ method: 'elicitation/create', params: { message, requestedSchema: ELICIT_SCHEMA } }, ElicitResultSchema),
  };
}

function register(server: McpServer, transport: StreamableHTTPServerTransport, track: TrackCall): void {
  for (const [name, result] of Object.entries(STATIC_TOOLS)) server.registerTool(name, { description: name }, async () => result);
  for (const [name, run] of Object.entries(DYNAMIC_TOOLS)) {
    server.registerTool(name, { description: name, inputSchema: {} }, async (_args, extra) => track(run(kitOf(extra, transport))));
  }
  server.registerTool('test_sampling', { description: 'sampling', inputSchema: { prompt: z.string() } }, async ({ prompt }, extra) =>
    track(samplingTool(kitOf(extra, transport), prompt)),
  );
  server.registerTool('test_elicitation', { description: 'elicitation', inputSchema: { message: z.string() } }, async ({ message }, extra) =>
    track(elicitationTool(kitOf(extra, transport), message)),
  );
  for (const r of STATIC_RESOURCES) {
    server.registerResource(r.name, r.uri, { mimeType: r.mimeType }, async () => ({ contents: [{ uri: r.uri, mimeType: r.mimeType, ...r.contents }] }));
  }
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, async () => SIMPLE_PROMPT);
  server.registerPrompt('test_prompt_with_arguments', { description: 'A prompt with required arguments', argsSchema: { arg1: z.string(), arg2: z.string() } }, async ({ arg1, arg2 }) =>
    promptWithArguments(arg1, arg2),
  );
}
