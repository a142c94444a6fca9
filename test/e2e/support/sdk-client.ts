import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

export interface ConnectedClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  sessionId: string;
  /** `data` of every notifications/message received, in order. */
  messages: string[];
  /** sampling/createMessage requests received. */
  samplingRequests: number;
  close(): Promise<void>;
}

export interface ClientOptions {
  principal?: string;
  /** Reconnect the GET stream after a cut (default: yes). */
  reconnect?: boolean;
  /** Delay before a reconnect; default 300 ms, time for the server to store what the client missed. */
  reconnectDelayMs?: number;
  /** Answer sampling requests at once (default: never answer, leaving them pending). */
  answerSampling?: boolean;
}

/** Bounds every request a scenario makes (the SDK's default is 60 s). */
export const RPC_TIMEOUT = { timeout: 3000 };

export async function connectClient(url: URL, opts: ClientOptions = {}): Promise<ConnectedClient> {
  const transport = new StreamableHTTPClientTransport(url, {
    ...(opts.principal !== undefined && { requestInit: { headers: { 'x-principal': opts.principal } } }),
    reconnectionOptions: {
      initialReconnectionDelay: opts.reconnectDelayMs ?? 300,
      maxReconnectionDelay: opts.reconnectDelayMs ?? 300,
      reconnectionDelayGrowFactor: 1,
      maxRetries: opts.reconnect === false ? 0 : 2,
    },
  });
  const client = new Client({ name: 'resumescope-e2e-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  const connected: ConnectedClient = {
    client,
    transport,
    sessionId: '',
    messages: [],
    samplingRequests: 0,
    close: async () => {
      await client.close().catch(() => {});
    },
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    connected.messages.push(String(n.params.data));
  });
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    connected.samplingRequests += 1;
    if (opts.answerSampling === true) {
      return { model: 'e2e', role: 'assistant' as const, content: { type: 'text' as const, text: 'blue' } };
    }
    // A client that has not answered yet: the request stays pending on the server.
    return new Promise<never>(() => {});
  });
  client.onerror = () => {};
  await client.connect(transport, RPC_TIMEOUT);
  connected.sessionId = transport.sessionId ?? '';
  return connected;
}
