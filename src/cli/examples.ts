import type { Command } from 'commander';

// The examples each command's --help ends with. test/cli/examples.test.ts parses
// every one, and runs those that read the samples, so they stay true.

export interface Example {
  /** The command line as typed, starting with `resumescope`. */
  line: string;
  what: string;
}

export const EXAMPLES: Record<string, Example[]> = {
  analyze: [
    { line: 'resumescope analyze samples/', what: 'report on the logs in a folder (-r: its subfolders too; exit 1 at an error or worse)' },
    { line: 'resumescope analyze samples/writers.ndjson --rule dual-writer --raw', what: 'one rule, its evidence quoted as logged' },
    { line: 'resumescope analyze samples/proxy --no-not-knowable --fail-on warning', what: 'a proxy log, gate on warnings' },
    { line: 'resumescope analyze -r samples/k8s', what: 'a cluster node\'s /var/log/pods: a folder per pod, CRI lines, rotated logs' },
    { line: 'resumescope analyze --json-array --csv samples/exports', what: "exports as log tools hand them over: one JSON document (aws logs filter-log-events, gcloud logging read --format=json), a console's CSV download, a shipper's documents" },
    { line: 'resumescope analyze samples/ --format sarif -o resumescope.sarif', what: 'for code scanning' },
    { line: 'resumescope analyze samples/ --write-baseline baseline.json', what: 'accept today\'s findings; --baseline baseline.json hides them later' },
  ],
  ingest: [{ line: 'resumescope ingest samples/ --db timeline.db', what: 'keep the timeline for query, timeline and tui --db' }],
  timeline: [{ line: 'resumescope timeline S-1001 samples/writers.ndjson', what: 'one session\'s streams, upgrades and requests' }],
  query: [
    { line: 'resumescope query --list', what: 'the named queries' },
    { line: 'resumescope query --schema', what: 'the tables and columns your SQL can read, and what each holds (times in epoch ms)' },
    { line: 'resumescope query rejected samples/proxy', what: 'the lines that could not be read, and why' },
    { line: 'resumescope query "SELECT kind, count(*) AS n FROM records GROUP BY kind" samples/writers.ndjson', what: 'your own SQL (read-only)' },
  ],
  explain: [
    { line: 'resumescope explain samples/writers.ndjson -n 1', what: 'finding #1 of the text report, in plain English' },
    { line: 'resumescope explain samples/ --rule silent-truncation', what: 'every finding of one rule' },
  ],
  rules: [{ line: 'resumescope rules', what: 'the rule ids, their severities and what each catches' }],
  whatif: [
    { line: 'resumescope whatif samples/writers.ndjson --fence-grace 30s', what: 'would a longer fence grace have helped?' },
    { line: 'resumescope whatif samples/replay-integrity.ndjson --retention 120s', what: 'would a longer retention have kept the replays whole?' },
  ],
  tui: [
    { line: 'resumescope tui samples/', what: 'the dashboard over recorded logs' },
    { line: 'resumescope tui --db timeline.db', what: 'over a timeline kept by ingest' },
  ],
  watch: [
    { line: 'resumescope watch /var/log/mcp/server.ndjson', what: 'follow a live log in the dashboard' },
    { line: 'resumescope watch server.ndjson --fail-on error --exit-after 10m -f ndjson', what: 'a soak-test guard: stop at the first error' },
  ],
};

/** Ends the command's --help with its examples. */
export function addExamples(cmd: Command): void {
  const examples = EXAMPLES[cmd.name()];
  if (examples === undefined || examples.length === 0) return;
  cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  # ${e.what}\n  $ ${e.line}`).join('\n')}\n`);
}
