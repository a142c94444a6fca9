// npm run bench [-- options]: analyze end to end on production-shaped logs, at
// two sizes per shape, next to a bare split+parse, an SQLite floor and lnav, in
// the same run. Every measured pass is its own child process, so that its wall
// time and peak RSS are its own. Needs dist/ (npm run build). Speed goals live
// here, not in timed tests.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, SHAPES } from './generate.js';

const here = dirname(fileURLToPath(import.meta.url));
const GENERATOR_DIGEST = createHash('sha256').update(readFileSync(join(here, 'generate.js'))).digest('hex').slice(0, 8);
const cli = join(here, '..', 'bin', 'resumescope.js');

const HELP = `usage: npm run bench -- [options]

Times \`resumescope analyze\` end to end (a child process; wall time and peak RSS)
on generated logs of each shape, at two sizes in one run, beside:
  bare   a line split + JSON.parse of the same file (the floor of any NDJSON reader)
  floor  bare + insert 8 fields per line into an unindexed SQLite table
  lnav   lnav load + count(*) of the same file, when lnav is installed
         (format: bench/lnav-resumescope.json, installed into a throw-away HOME;
         lnav keys on "ts", so it counts only the spec-dialect lines of mixed files)

options:
  --shapes a,b      shapes to run (default: all); known:
${Object.entries(SHAPES).map(([k, v]) => `                      ${k.padEnd(11)} ${v}`).join('\n')}
  --sizes N,M       line counts, k/M suffixes allowed (default 100k,400k)
  --large           sizes 1M,3M (the issue-10 targets)
  --lines N         quick run: sizes N and 4N (e.g. --lines 2000 as a smoke test)
  --folder N        instead: a folder of N small files (shape "folder", --folder-lines
                    lines each, default 300), analyze against ingest of the same folder
                    (issue 10: one principal running the same tools in every session)
  --folder-lines L  lines per file of --folder
  --seed N          generator seed (default 1); same seed, same bytes
  --no-lnav         skip lnav even when installed
  --no-floor        skip the SQLite floor pass
  --json            print the results as JSON on stdout instead of the table
  --files A,B       instead: time these log files (your own export, or logs from
                    bench/independent/generate.mjs, written without reading this code),
                    each beside the same passes; linearity between the first and the last
  --keep DIR        write the generated logs to DIR and keep them; a log kept there
                    by an earlier run (same shape, size, seed and generator) is reused
  --max-x-bare N    exit 1 if any run's analyze took more than N times its bare parse
  --max-linearity X exit 1 if any shape's linearity is above X (a gate for a nightly
                    job: a per-session walk shows as hundreds of times bare long before
                    the linearity of two sizes gives it away)
  -h, --help        this text

Columns: time and lines/s of analyze; peak RSS of analyze; cores = its CPU time
(every thread) over its wall time, 2.0 keeping both cores busy; findings; x bare,
x floor, x lnav = analyze time over that pass's time. Per shape, "linearity" is
(time ratio) / (size ratio) between the two sizes: 1.0 is linear, 2.0 at 4x the
lines means cost grows about quadratically.`;

function parseArgs(argv) {
  const o = { shapes: Object.keys(SHAPES).filter((s) => s !== 'folder'), sizes: [100_000, 400_000], seed: 1, lnav: true, floor: true, json: false, keep: undefined, folder: 0, folderLines: 300 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fail(`${a}: needs a value`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') {
      console.log(HELP);
      process.exit(0);
    } else if (a === '--shapes') {
      o.shapes = next().split(',').map((s) => s.trim()).filter(Boolean);
      for (const s of o.shapes) if (!(s in SHAPES)) fail(`--shapes: unknown shape "${s}" (known: ${Object.keys(SHAPES).join(', ')})`);
    } else if (a === '--sizes') o.sizes = next().split(',').map(count);
    else if (a === '--large') o.sizes = [1_000_000, 3_000_000];
    else if (a === '--lines' || /^\d/.test(a)) {
      const n = count(a === '--lines' ? next() : a);
      o.sizes = [n, 4 * n];
    } else if (a === '--seed') o.seed = Number(next());
    else if (a === '--folder') o.folder = count(next());
    else if (a === '--folder-lines') o.folderLines = count(next());
    else if (a === '--no-lnav') o.lnav = false;
    else if (a === '--no-floor') o.floor = false;
    else if (a === '--json') o.json = true;
    else if (a === '--keep') o.keep = next();
    else if (a === '--files') {
      o.files = next().split(',').map((f) => f.trim()).filter(Boolean);
      for (const f of o.files) if (!existsSync(f)) fail(`--files: no such file: ${f}`);
    }
    else if (a === '--max-x-bare') o.maxXBare = positive(a, next());
    else if (a === '--max-linearity') o.maxLinearity = positive(a, next());
    else fail(`unknown option ${a} (see --help)`);
  }
  return o;
}

function count(s) {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(s.trim());
  if (!m) fail(`not a line count: "${s}"`);
  const n = Math.round(Number(m[1]) * ({ k: 1e3, K: 1e3, m: 1e6, M: 1e6 }[m[2]] ?? 1));
  if (n < 1) fail(`not a line count: "${s}"`);
  return n;
}

function positive(option, s) {
  const n = Number(s);
  if (!(n > 0)) fail(`${option}: not a positive number: "${s}"`);
  return n;
}

function fail(msg) {
  console.error(`bench: ${msg}`);
  process.exit(2);
}

/** Runs a node script as a child with the RSS preload; wall ms, peak RSS (MB), stdout. */
function nodeChild(dir, args) {
  const rssFile = join(dir, 'rss.txt');
  rmSync(rssFile, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', join(here, 'rss.js'), ...args], {
    env: { ...process.env, BENCH_RSS_OUT: rssFile }, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const usage = existsSync(rssFile) ? JSON.parse(readFileSync(rssFile, 'utf8')) : { maxRssKb: NaN, cpuUs: NaN };
  // cores: CPU time over wall time, every thread counted: how much of the machine the pass kept busy.
  return { ms, rssMb: usage.maxRssKb / 1024, cores: usage.cpuUs / 1000 / ms, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A reference pass (bare, floor) that failed would make every ratio to it a lie: the run stops. */
function reference(pass, name, shape, lines) {
  if (pass.status !== 0) throw new Error(`${name} pass on ${shape} ${lines}: exit ${pass.status}: ${pass.stderr.slice(0, 2000)}`);
  return pass;
}

function lnavAvailable() {
  return spawnSync('lnav', ['-V'], { encoding: 'utf8' }).status === 0;
}

/** Installs the format into a throw-away HOME so that the user's lnav config is untouched. */
function lnavHome(dir) {
  const home = join(dir, 'lnav-home');
  mkdirSync(home, { recursive: true });
  const r = spawnSync('lnav', ['-i', join(here, 'lnav-resumescope.json')], { env: { ...process.env, HOME: home }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`lnav -i failed: ${r.stderr || r.stdout}`);
  return home;
}

function lnavCount(home, file) {
  const timed = existsSync('/usr/bin/time');
  const args = ['-n', '-c', ';SELECT count(*) AS n FROM resumescope_log', file];
  const t0 = process.hrtime.bigint();
  const r = timed
    ? spawnSync('/usr/bin/time', ['-f', 'BENCH_RSS_KB=%M', 'lnav', ...args], { env: { ...process.env, HOME: home }, encoding: 'utf8' })
    : spawnSync('lnav', args, { env: { ...process.env, HOME: home }, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const rss = /BENCH_RSS_KB=(\d+)/.exec(r.stderr ?? '');
  const n = [...(r.stdout ?? '').matchAll(/(\d+)/g)].pop();
  const crashed = /lnav has crashed/.test(`${r.stdout}${r.stderr}`);
  // A pass that recognised no line read nothing: its time is no load of the log, and no ratio may be made of it.
  const failure = crashed ? 'it crashed' : r.status !== 0 ? `exit ${r.status}` : n === undefined ? 'no count' : Number(n[1]) === 0 ? 'it recognised no line' : undefined;
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : NaN, counted: failure === undefined ? Number(n[1]) : NaN, failure };
}

/**
 * The log of this shape, size and seed: generated, or with --keep the one an earlier run kept there (the
 * same seed gives the same bytes; at 3M lines generating takes minutes). Its name carries a digest of the
 * generator, so that a changed generator never reuses an old log. Written under another name and renamed
 * once complete, so that a run stopped half way leaves nothing to be reused.
 */
async function logOf(o, dir, shape, lines) {
  const file = join(o.keep ?? dir, `${shape}-${lines}-seed${o.seed}-${GENERATOR_DIGEST}.ndjson`);
  if (o.keep && existsSync(file)) return { file, written: countLines(file) };
  const partial = `${file}.partial`;
  const written = await generate(partial, lines, { shape, seed: o.seed });
  renameSync(partial, file);
  return { file, written };
}

function countLines(file) {
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(1 << 20);
  let n = 0;
  try {
    for (let got = readSync(fd, buf); got > 0; got = readSync(fd, buf)) for (let i = buf.indexOf(10); i !== -1 && i < got; i = buf.indexOf(10, i + 1)) n++;
  } finally {
    closeSync(fd);
  }
  return n;
}

/**
 * A JSON report's summary and its count of findings (the sum of `by_rule`), read from the file's end, where the
 * summary is written last: a report of hundreds of thousands of findings is past V8's longest string (one-id at 3M).
 */
function reportSummary(file) {
  const size = statSync(file).size;
  const tail = Buffer.alloc(Math.min(size, 4 << 20));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, tail, 0, tail.length, size - tail.length);
  } finally {
    closeSync(fd);
  }
  const text = tail.toString('utf8');
  const at = text.lastIndexOf('\n  "summary": ');
  if (at < 0) throw new Error(`${file}: no summary at the end of the report`);
  const summary = JSON.parse(text.slice(at + '\n  "summary": '.length, text.lastIndexOf('}')));
  return { summary, findings: Object.values(summary.by_rule).reduce((a, b) => a + b, 0) };
}

async function measure(o, dir, lnav, shape, lines, given) {
  const { file, written } = given !== undefined ? { file: given, written: countLines(given) } : await logOf(o, dir, shape, lines);
  const mb = statSync(file).size / 1e6;
  const bare = reference(nodeChild(dir, [join(here, 'baseline.js'), 'bare', file]), 'bare', shape, lines);
  const floor = o.floor ? reference(nodeChild(dir, [join(here, 'baseline.js'), 'floor', file, join(dir, 'floor.db')]), 'floor', shape, lines) : undefined;
  rmSync(join(dir, 'floor.db'), { force: true });
  const reportFile = join(dir, 'report.json');
  const an = nodeChild(dir, [cli, 'analyze', file, '--format', 'json', '--fail-on', 'never', '-o', reportFile]);
  if (an.status !== 0) throw new Error(`analyze ${shape} ${lines}: exit ${an.status}: ${an.stderr.slice(0, 2000)}`);
  const report = reportSummary(reportFile);
  rmSync(reportFile, { force: true });
  // lnav 0.11.1 crashes on some logs (the fuzz shape: a line 37 s earlier than the first); a pass that failed has no time to compare.
  const lnavRun = lnav ? lnavCount(lnav, file) : undefined;
  const ln = lnavRun && !Number.isNaN(lnavRun.counted) ? lnavRun : undefined;
  if (lnavRun && ln === undefined && !o.json) process.stderr.write(`bench:   lnav failed on ${shape} at ${lines} lines (${lnavRun.failure}): no x lnav\n`);
  if (!o.keep && given === undefined) rmSync(file, { force: true });
  return {
    shape, lines: written, mb: round(mb, 1),
    analyze: { s: round(an.ms / 1000, 2), lines_per_s: Math.round(written / (an.ms / 1000)), peak_rss_mb: round(an.rssMb, 0), cores: round(an.cores, 2) },
    findings: report.findings, rejected: report.summary.rejected_lines, sessions: report.summary.sessions,
    bare: { s: round(bare.ms / 1000, 2), peak_rss_mb: round(bare.rssMb, 0) },
    ...(floor && { floor: { s: round(floor.ms / 1000, 2), peak_rss_mb: round(floor.rssMb, 0) } }),
    ...(ln && { lnav: { s: round(ln.ms / 1000, 2), peak_rss_mb: round(ln.rssMb, 0), counted: ln.counted } }),
    x_bare: round(an.ms / bare.ms, 1),
    ...(floor && { x_floor: round(an.ms / floor.ms, 1) }),
    ...(ln && { x_lnav: round(an.ms / ln.ms, 1) }),
  };
}

const round = (x, d) => (Number.isFinite(x) ? Number(x.toFixed(d)) : null);

function table(rows, scaling, meta) {
  const cols = [
    ['shape', (r) => r.shape], ['lines', (r) => r.lines.toLocaleString('en')], ['MB', (r) => r.mb],
    ['analyze s', (r) => r.analyze.s], ['lines/s', (r) => r.analyze.lines_per_s.toLocaleString('en')], ['RSS MB', (r) => r.analyze.peak_rss_mb], ['cores', (r) => r.analyze.cores],
    ['findings', (r) => r.findings], ['bare s', (r) => r.bare.s], ['x bare', (r) => r.x_bare],
    ['floor s', (r) => r.floor?.s ?? '-'], ['x floor', (r) => r.x_floor ?? '-'],
    ['lnav s', (r) => r.lnav?.s ?? '-'], ['lnav RSS', (r) => r.lnav?.peak_rss_mb ?? '-'], ['x lnav', (r) => r.x_lnav ?? '-'],
    ['lnav counted', (r) => (r.lnav ? r.lnav.counted.toLocaleString('en') : '-')],
  ];
  const cells = [cols.map(([h]) => h), ...rows.map((r) => cols.map(([, f]) => String(f(r) ?? '-')))];
  const w = cols.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c) => c.map((x, i) => (i === 0 ? x.padEnd(w[i]) : x.padStart(w[i]))).join('  ');
  const out = [meta, '', line(cells[0]), w.map((n) => '-'.repeat(n)).join('  '), ...cells.slice(1).map(line), ''];
  out.push('scaling between the two sizes (linearity = time ratio / size ratio; 1.0 is linear):');
  for (const s of scaling) out.push(`  ${s.shape.padEnd(11)} size x${s.size_ratio}  time x${s.time_ratio}  linearity ${s.linearity}  RSS x${s.rss_ratio}`);
  return out.join('\n');
}

/** A folder of small files: analyze against ingest (read, normalize, store, derive) of the same folder, each its own process. */
async function measureFolder(o, dir) {
  const folder = join(o.keep ?? dir, `folder-${o.folder}`);
  mkdirSync(folder, { recursive: true });
  let lines = 0;
  for (let i = 0; i < o.folder; i++) {
    const name = join(folder, `node-${String(i).padStart(4, '0')}.ndjson`);
    lines += await generate(name, o.folderLines, { shape: 'folder', seed: o.seed + i, firstSession: i * 1000, startMs: Date.parse('2026-11-09T10:00:00.000Z') + i * 60_000 });
  }
  const ingest = nodeChild(dir, [cli, 'ingest', folder, '--quiet']);
  if (ingest.status !== 0) throw new Error(`ingest folder: exit ${ingest.status}: ${ingest.stderr.slice(0, 2000)}`);
  const reportFile = join(dir, 'report.json');
  const an = nodeChild(dir, [cli, 'analyze', folder, '--format', 'json', '--fail-on', 'never', '-o', reportFile]);
  if (an.status !== 0) throw new Error(`analyze folder: exit ${an.status}: ${an.stderr.slice(0, 2000)}`);
  const report = reportSummary(reportFile);
  if (!o.keep) rmSync(folder, { recursive: true, force: true });
  return {
    files: o.folder, lines, findings: report.findings,
    ingest: { s: round(ingest.ms / 1000, 2), peak_rss_mb: round(ingest.rssMb, 0) },
    analyze: { s: round(an.ms / 1000, 2), peak_rss_mb: round(an.rssMb, 0) },
    x_ingest: round(an.ms / ingest.ms, 2),
  };
}

const o = parseArgs(process.argv.slice(2));
if (!existsSync(join(here, '..', 'dist', 'api.js'))) fail('dist/ is missing: run npm run build first');
const dir = mkdtempSync(join(tmpdir(), 'resumescope-bench-'));
if (o.folder > 0) {
  try {
    const r = await measureFolder(o, dir);
    if (o.json) console.log(JSON.stringify(r, null, 2));
    else {
      console.log(`folder of ${r.files} files, ${r.lines.toLocaleString('en')} lines, ${r.findings} findings`);
      console.log(`  ingest   ${r.ingest.s} s, ${r.ingest.peak_rss_mb} MB`);
      console.log(`  analyze  ${r.analyze.s} s, ${r.analyze.peak_rss_mb} MB  (x ingest ${r.x_ingest})`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
if (o.keep) mkdirSync(o.keep, { recursive: true });
try {
  const lnav = o.lnav && lnavAvailable() ? lnavHome(dir) : undefined;
  // The runs: each shape at each size, or the user's own logs (an export, or bench/independent/generate.mjs's),
  // 'files' their shape and each file a size.
  if (o.files) {
    o.shapes = ['files'];
    o.sizes = o.files.map(() => 0);
  }
  const runs = o.files
    ? o.files.map((file) => ({ shape: 'files', lines: 0, file, name: file }))
    : o.shapes.flatMap((shape) => o.sizes.map((lines) => ({ shape, lines, file: undefined, name: `${shape} at ${lines.toLocaleString('en')} lines` })));
  const rows = [];
  for (const run of runs) {
    if (!o.json) process.stderr.write(`bench: ${run.name}…\n`);
    const row = await measure(o, dir, lnav, run.shape, run.lines, run.file);
    rows.push(row);
    // A long run that is stopped still leaves what it measured.
    if (!o.json) process.stderr.write(`bench:   analyze ${row.analyze.s} s, ${row.analyze.peak_rss_mb} MB, ${row.findings} findings, x bare ${row.x_bare}${row.x_lnav !== undefined ? `, x lnav ${row.x_lnav}` : ''}\n`);
  }
  const scaling = [];
  if (o.sizes.length >= 2) {
    for (const shape of o.shapes) {
      const [a, b] = [rows.find((r) => r.shape === shape && r.lines > 0), rows.filter((r) => r.shape === shape).pop()];
      const size = b.lines / a.lines;
      const time = b.analyze.s / a.analyze.s;
      scaling.push({ shape, size_ratio: round(size, 1), time_ratio: round(time, 1), linearity: round(time / size, 2), rss_ratio: round(b.analyze.peak_rss_mb / a.analyze.peak_rss_mb, 2) });
    }
  }
  const meta = `node ${process.version}, ${(await import('node:os')).cpus().length} cores, load ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}, seed ${o.seed}${lnav ? '' : ', lnav not run'}`;
  if (o.json) console.log(JSON.stringify({ meta, rows, scaling }, null, 2));
  else console.log(table(rows, scaling, meta));
  const over = [
    ...(o.maxXBare === undefined ? [] : rows.filter((r) => r.x_bare > o.maxXBare).map((r) => `${r.shape} at ${r.lines.toLocaleString('en')} lines took ${r.x_bare}x its bare parse (limit ${o.maxXBare})`)),
    ...(o.maxLinearity === undefined ? [] : scaling.filter((s) => s.linearity > o.maxLinearity).map((s) => `${s.shape}: linearity ${s.linearity} (limit ${o.maxLinearity})`)),
  ];
  for (const line of over) console.error(`bench: over the limit: ${line}`);
  if (over.length > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
