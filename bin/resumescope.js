#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the prepare script).
import { setFlagsFromString } from 'node:v8';

// V8 lets its heap grow up to four times what survived the last full collection
// while collections are cheap, and analyze turns over much short-lived data
// (records, engine replay, findings) while little stays live: at 3M production
// lines the heap reached 340 MB around 70-90 MB live. Growing by half instead:
// 3M peak 641 -> 474 MB, for about 5% more time (README, Performance).
// A flag given to node by the user wins.
const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
if (!/heap[-_]growing[-_]percent/.test(given)) setFlagsFromString('--heap-growing-percent=50');

// React's development build, which ink draws with, records a performance measure for every render,
// and Node keeps every one: the dashboard's heap grew by 20 MB a second while it tailed a log (524 MB
// of measures after 35 s). Set before React is first imported, as its entry picks the build then.
process.env.NODE_ENV = 'production';

const { main } = await import('../dist/cli/main.js');
main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`resumescope: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
