import { randomUUID } from 'node:crypto';
import { localhostHostValidation, NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer, type EventStore, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { instrumentEventStore, instrumentTransport } from '../../../src/instrument/index.js';
import { DYNAMIC_TOOLS, ELICIT_SCHEMA, SERVER_CAPABILITIES, SIMPLE_PROMPT, STATIC_RESOURCES, STATIC_TOOLS, elicitationTool, promptWithArguments, samplingTool, type ToolKit } from './features.js';
import { hostMcp, type McpSession, type RunningServer, type TrackCall } from './host.js';
import type { ServerOptions } from './server-v1.js';

// The conformance server on the 2.x split packages: McpServer from
// @modelcontextprotocol/server, NodeStreamableHTTPServerTransport from
// @modelcontextprotocol/node (stateful, an event store, a retry interval),
// and that package's own localhost Host validation against DNS rebinding.

export function startServerV2(opts: ServerOptions): Promise<RunningServer> {
  const validateHost = localhostHostValidation();
  return hostMcp(
    opts.recorder,
    async (_port, onInitialized, onEnd, track) => {
      const server = new McpServer({ name: 'resumescope-conformance-v2', version: '1.0.0' }, { capabilities: SERVER_CAPABILITIES });
      const transport = instrumentTransport(
        new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          eventStore: instrumentEventStore(opts.eventStore(), opts.recorder) as EventStore,
          ...(opts.retryIntervalMs !== undefined && { retryInterval: opts.retryIntervalMs }),
          onsessioninitialized: (id) => onInitialized(id, session),
          onsessionclosed: (id) => onEnd(id),
        }),
        opts.recorder,
      );
      transport.onclose = () => {
        if (transport.sessionId !== undefined) onEnd(transport.sessionId);
      };
      const session: McpSession = {
        handleRequest: (req, res) => transport.handleRequest(req, res),
        get sessionId() {
          return transport.sessionId;
        },
        notify: (text) => server.server.notification({ method: 'notifications/message', params: { level: 'info', data: text } }),
        close: () => server.close(),
      };
      register(server, transport, track);
      await server.connect(transport);
      return session;
    },
    validateHost,
  );
}

function kitOf(ctx: ServerContext, transport: NodeStreamableHTTPServerTransport): ToolKit {
  return {
    notify: (n) => ctx.mcpReq.notify(n),
    progressToken: ctx.mcpReq._meta?.progressToken,
    closeStream: () => transport.closeSSEStream(ctx.mcpReq.id),
    sample: (prompt) => ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 }),
    elicit: (message) => ctx.mcpReq.elicitInput({ message, requestedSchema: ELICIT_SCHEMA }),
  };
}

function register(server: McpServer, transport: NodeStreamableHTTPServerTransport, track: TrackCall): void {
  for (const [name, result] of Object.entries(STATIC_TOOLS)) server.registerTool(name, { description: name }, async () => result);
  for (const [name, run] of Object.entries(DYNAMIC_TOOLS)) {
    server.registerTool(name, { description: name, inputSchema: {} }, async (_args, ctx) => track(run(kitOf(ctx, transport))));
  }
  server.registerTool('test_sampling', { description: 'sampling', inputSchema: { prompt: z.string() } }, async ({ prompt }, ctx) =>
    track(samplingTool(kitOf(ctx, transport), prompt)),
  );
  server.registerTool('test_elicitation', { description: 'elicitation', inputSchema: { message: z.string() } }, async ({ message }, ctx) =>
    track(elicitationTool(kitOf(ctx, transport), message)),
  );
  for (const r of STATIC_RESOURCES) {
    server.registerResource(r.name, r.uri, { mimeType: r.mimeType }, async () => ({ contents: [{ uri: r.uri, mimeType: r.mimeType, ...r.contents }] }));
  }
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, async () => SIMPLE_PROMPT);
  server.registerPrompt('test_prompt_with_arguments', { description: 'A prompt with required arguments', argsSchema: { arg1: z.string(), arg2: z.string() } }, async ({ arg1, arg2 }) =>
    promptWithArguments(arg1, arg2),
  );
}
