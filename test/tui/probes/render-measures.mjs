// Loads the CLI as its launcher does (printing its version), then draws 50 ink frames and reports
// how many performance measures React left behind. Run by react-production.test.ts.
import { Writable } from 'node:stream';

process.argv = [process.argv[0], 'resumescope', '--version'];
await import(process.env.RESUMESCOPE_BIN);
const { render, Text } = await import('ink');
const { createElement } = await import('react');
const sink = Object.assign(new Writable({ write: (_chunk, _enc, done) => done() }), { columns: 80, rows: 24 });
const app = render(createElement(Text, null, 'frame 0'), { stdout: sink, patchConsole: false, debug: true });
for (let i = 1; i < 50; i++) app.rerender(createElement(Text, null, `frame ${i}`));
app.unmount();
await new Promise((resolve) => setTimeout(resolve, 50));
process.stderr.write(JSON.stringify({ measures: performance.getEntriesByType('measure').length }) + '\n');
