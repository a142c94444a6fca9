import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// A server on the 2.x packages alone (@modelcontextprotocol/server with
// @modelcontextprotocol/node) must type-check against resumescope/instrument
// without @modelcontextprotocol/sdk 1.x installed. tsc runs over a consumer
// file whose tsconfig maps every @modelcontextprotocol/sdk specifier to an
// empty module (a missing one would let tsc fall back to node_modules): 1.x
// exports nothing there, as in such a project.

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const DIR = join(ROOT, '.tmp', `types-without-sdk1-${process.pid}`);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const CONSUMER = (instrument: string): string => `
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer, type EventStore, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createRecorder, instrumentEventStore, instrumentHandler, instrumentTransport } from '${instrument}';

class Store implements EventStore {
  async storeEvent(_stream: string, _message: JSONRPCMessage): Promise<string> { return randomUUID(); }
  async replayEventsAfter(_id: string, _o: { send: (id: string, m: JSONRPCMessage) => Promise<void> }): Promise<string> { return ''; }
}
const recorder = createRecorder(() => {});
const transport = instrumentTransport(
  new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), eventStore: instrumentEventStore(new Store(), recorder) }),
  recorder,
);
const server = new McpServer({ name: 'x', version: '1' });
void server.connect(transport);
const handle = instrumentHandler(recorder, (req, res) => transport.handleRequest(req, res));
createServer((req, res) => void handle(req, res));
`;

// The control: the same tsconfig must really hide 1.x, or the check above proves nothing.
const CONTROL = `import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';\nvoid StreamableHTTPServerTransport;\n`;

function project(name: string, source: string): string {
  const dir = join(DIR, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'consumer.ts'), source);
  writeFileSync(join(dir, 'sdk-1x-not-installed.d.ts'), 'export {};\n');
  const config = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      baseUrl: '.',
      paths: { '@modelcontextprotocol/sdk': ['./sdk-1x-not-installed.d.ts'], '@modelcontextprotocol/sdk/*': ['./sdk-1x-not-installed.d.ts'] },
    },
    files: ['consumer.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  return dir;
}

async function tsc(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir, timeout: 60_000 });
    return { ok: true, output: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message };
  }
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe('resumescope/instrument types in a project with only the 2.x SDK packages', () => {
  it('type-checks a 2.x server instrumented with it, while 1.x is hidden', { timeout: 90_000 }, async () => {
    const [consumer, control] = await Promise.all([tsc(project('consumer', CONSUMER(join(ROOT, 'src/instrument/index.js')))), tsc(project('control', CONTROL))]);
    expect(control.ok, 'the control must fail: 1.x is not hidden').toBe(false);
    expect(control.output).toMatch(/TS2305|TS2614/);
    expect(consumer.output).toBe('');
    expect(consumer.ok).toBe(true);
  });
});
