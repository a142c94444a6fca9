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

// Until main settles, the run has not said what it found: a crash while loading (EMFILE under a low
// open-file limit) or a wait that can never end (the event loop drains, and Node exits 0) must not pass
// a gate. Exit 2, with a word, as for any run that could not finish.
let settled = false;
process.exitCode = 2;
process.on('beforeExit', () => {
  if (settled) return;
  settled = true;
  process.stderr.write('resumescope: stopped before it finished: it waited for something that could never come (a bug: please report it with the command line)\n');
});
const fail = (err) => {
  settled = true;
  const hint = err?.code === 'EMFILE' ? ' (the open-file limit is too low for Node to load resumescope: raise it, e.g. ulimit -n 1024)' : '';
  process.stderr.write(`resumescope: ${err instanceof Error ? err.message : String(err)}${hint}\n`);
  process.exitCode = 2;
};
try {
  const { main } = await import('../dist/cli/main.js');
  main(process.argv).then((code) => {
    settled = true;
    process.exitCode = code;
  }, fail);
} catch (err) {
  fail(err);
}
