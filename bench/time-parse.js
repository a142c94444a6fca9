// A micro-benchmark of the per-line time parser (src/normalize/time.ts): 1M timestamps of each shape, as the
// reader asks for them (parseTime, then subMillisecond), in log order. Run it once around a change to the
// parser, against the built module before and after:
//   node bench/time-parse.js [path/to/dist/normalize/time.js]
// Not a test: the figures depend on the machine and its load; compare runs made side by side. A shape the
// parser does not read costs what finding that out costs ("read 0").
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const modulePath = resolve(process.argv[2] ?? 'dist/normalize/time.js');
const { parseTime, subMillisecond } = await import(pathToFileURL(modulePath).href);

const N = 1_000_000;
const START = Date.parse('2026-11-09T10:00:00.000Z');
const RUNS = 5;
const STEP_MS = 7; // a busy log: a new second every ~143 lines
const iso = (i) => new Date(START + i * STEP_MS).toISOString();

/** Each shape's 1M strings, built once before timing. */
const SHAPES = {
  'RFC 3339 .mmmZ (the common shape)': (i) => iso(i),
  'RFC 3339 +01:00': (i) => new Date(START + i * STEP_MS + 3_600_000).toISOString().replace('Z', '+01:00'),
  'RFC 3339 .µµµµµµZ': (i) => iso(i).replace('Z', '123Z'),
  'hour-only offset +02': (i) => new Date(START + i * STEP_MS + 7_200_000).toISOString().replace('Z', '+02'),
  'decimal comma ,mmmZ': (i) => iso(i).replace('.', ','),
  "Go's time.Time.String()": (i) => iso(i).replace('T', ' ').replace('Z', ' +0000 UTC'),
  'space and UTC': (i) => iso(i).replace('T', ' ').replace('Z', ' UTC'),
};

function run(make) {
  const times = Array.from({ length: N }, (_, i) => make(i));
  let read = 0;
  let sum = 0;
  // CPU time, not wall time: on a shared machine a run waits for a core, and the wait is no cost of the parser.
  const t0 = process.cpuUsage();
  for (const t of times) {
    const ms = parseTime(t);
    if (ms !== undefined) {
      read++;
      sum += ms + (subMillisecond(t) ?? 0);
    }
  }
  const { user, system } = process.cpuUsage(t0);
  return { ms: (user + system) / 1e3, read, sum };
}

console.log(modulePath);
for (const [name, make] of Object.entries(SHAPES)) {
  const runs = Array.from({ length: RUNS }, () => run(make));
  const best = Math.min(...runs.map((r) => r.ms));
  console.log(`${name.padEnd(36)} best of ${RUNS}: ${best.toFixed(0).padStart(5)} ms (${((best * 1e6) / N).toFixed(0)} ns a time), read ${runs[0].read}`);
}
