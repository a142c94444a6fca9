// The reference passes, run as their own process so that time and peak RSS are
// theirs alone: node bench/baseline.js bare|floor FILE [DB]; prints the line count.
//   bare:  line split + JSON.parse, nothing kept (what any NDJSON reader must do;
//          a line that is not JSON is counted and passed over, as a reader that keeps bad lines must);
//   floor: + insert eight fields of each line into an unindexed SQLite table, the
//          least any SQLite-backed analyzer does (no normalization, no raw line,
//          no derive, no rules).
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';

const [mode, file, dbPath] = process.argv.slice(2);

function parsed(line) {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

async function bare() {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line) parsed(line);
    n++;
  }
  return n;
}

async function floor() {
  const db = new Database(dbPath);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE r (id INTEGER PRIMARY KEY, ts TEXT, kind TEXT, session TEXT, stream TEXT, event_id TEXT, node TEXT, method TEXT, rpc_kind TEXT)');
  const insert = db.prepare('INSERT INTO r (ts, kind, session, stream, event_id, node, method, rpc_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const v = (x) => (x === undefined ? null : typeof x === 'number' ? String(x) : typeof x === 'string' ? x : null);
  let n = 0;
  db.exec('BEGIN');
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line) continue;
    const o = parsed(line) ?? {};
    insert.run(v(o.ts), v(o.kind), v(o.session), v(o.stream), v(o.event_id), v(o.node), v(o.method), v(o.rpc_kind));
    n++;
  }
  db.exec('COMMIT');
  db.close();
  return n;
}

process.stdout.write(String(mode === 'floor' ? await floor() : await bare()) + '\n');
