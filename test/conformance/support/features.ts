// What the conformance suite's server scenarios call, as its example
// "everything" server (modelcontextprotocol/conformance,
// examples/servers/typescript/everything-server.ts) implements it, cut to
// the scenarios this test runs (see conformance.test.ts). The bodies are
// shared; each SDK's server adapts its handler context to `ToolKit`.

export const IMAGE_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const AUDIO_WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

type Content =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; text: string } };

export interface ToolResult {
  [key: string]: unknown;
  content: Content[];
}

/** Tools whose answer is fixed. */
export const STATIC_TOOLS: Record<string, ToolResult> = {
  test_simple_text: { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] },
  test_image_content: { content: [{ type: 'image', data: IMAGE_PNG, mimeType: 'image/png' }] },
  test_audio_content: { content: [{ type: 'audio', data: AUDIO_WAV, mimeType: 'audio/wav' }] },
  test_embedded_resource: {
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  },
  test_multiple_content_types: {
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: IMAGE_PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ],
  },
};

/** What a tool needs of the SDK it runs in. */
export interface ToolKit {
  notify(notification: { method: string; params: Record<string, unknown> }): Promise<void>;
  progressToken: string | number | undefined;
  /** Ends this call's POST response stream now (SEP-1699 polling); the result follows on a resumption. */
  closeStream(): void;
  sample(prompt: string): Promise<unknown>;
  elicit(message: string): Promise<{ action: string; content?: unknown }>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t: string): ToolResult => ({ content: [{ type: 'text', text: t }] });

export const DYNAMIC_TOOLS = {
  async test_tool_with_logging(kit: ToolKit): Promise<ToolResult> {
    for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await kit.notify({ method: 'notifications/message', params: { level: 'info', data } });
      await sleep(20);
    }
    return text('Tool with logging executed successfully');
  },
  async test_tool_with_progress(kit: ToolKit): Promise<ToolResult> {
    const progressToken = kit.progressToken ?? 0;
    for (const progress of [0, 50, 100]) {
      await kit.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
      await sleep(20);
    }
    return text(String(progressToken));
  },
  async test_error_handling(): Promise<ToolResult> {
    throw new Error('This tool intentionally returns an error for testing');
  },
  async test_reconnection(kit: ToolKit): Promise<ToolResult> {
    kit.closeStream();
    await sleep(100);
    return text('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.');
  },
} satisfies Record<string, (kit: ToolKit) => Promise<ToolResult>>;

export async function samplingTool(kit: ToolKit, prompt: string): Promise<ToolResult> {
  try {
    const result = (await kit.sample(prompt)) as { content?: { text?: string } };
    return text(`LLM response: ${result.content?.text ?? 'No response'}`);
  } catch (err) {
    return text(`Sampling not supported or error: ${(err as Error).message}`);
  }
}

export async function elicitationTool(kit: ToolKit, message: string): Promise<ToolResult> {
  try {
    const result = await kit.elicit(message);
    return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  } catch (err) {
    return text(`Elicitation not supported or error: ${(err as Error).message}`);
  }
}

export const ELICIT_SCHEMA = {
  type: 'object' as const,
  properties: { response: { type: 'string' as const, description: "User's response" } },
  required: ['response'],
};

export const STATIC_RESOURCES = [
  { name: 'static-text', uri: 'test://static-text', mimeType: 'text/plain', contents: { text: 'This is the content of the static text resource.' } },
  { name: 'static-binary', uri: 'test://static-binary', mimeType: 'image/png', contents: { blob: IMAGE_PNG } },
  { name: 'watched-resource', uri: 'test://watched-resource', mimeType: 'text/plain', contents: { text: 'Watched resource content' } },
] as const;

export const SIMPLE_PROMPT = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'This is a simple prompt for testing.' } }] };

export function promptWithArguments(arg1: string, arg2: string) {
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] };
}

export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};
