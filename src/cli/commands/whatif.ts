import { Option, type Command } from 'commander';
import { PROTOCOL_REVISIONS, isProtocolRevision, type ProtocolRevision } from '../../engine/index.js';
import { renderWhatIfText, whatIf, type PolicyChange } from '../../whatif/index.js';
import { UsageError, type Io } from '../io.js';
import { addInputOptions, detectOptions, duration, loadConfig, positiveInt } from '../options.js';
import { openWorkspace, type InputOptions } from '../workspace.js';

interface WhatifFlags extends InputOptions {
  config?: string;
  retention?: string;
  retentionEvents?: string;
  fenceGrace?: string;
  stormCount?: string;
  stormWindow?: string;
  dupWindow?: string;
  onUnresumable?: 'reject' | 'reset';
  protocol?: string;
  format: 'text' | 'json';
}

export function registerWhatif(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('whatif')
    .description('re-judge the log under another policy (retention, fence grace, storm thresholds, protocol revision): which findings disappear or appear, which reconnect decisions flip, which calls a broken stream loses')
    .argument('[paths...]', 'log files, folders, or - for stdin (plain or .gz)');
  addInputOptions(cmd)
    .option('--config <file>', 'the thresholds and disabled rules as logged (default: ./resumescope.config.json if present)')
    .option('--retention <duration>', 'what if events stayed replayable this long after they were sent, e.g. 120s')
    .option('--retention-events <n>', 'what if a stream kept only its last N events replayable')
    .option('--fence-grace <duration>', 'what if a stale writer had this long to be fenced, e.g. 5s')
    .option('--storm-count <n>', 'what if this many 404 POSTs made a storm')
    .option('--storm-window <duration>', 'what if a storm were counted within this window, e.g. 10s')
    .option('--dup-window <duration>', 'what if a retried tool call counted as a duplicate within this window, e.g. 60s')
    .addOption(new Option('--on-unresumable <choice>', 'what if an unresumable Last-Event-ID were rejected (409) or reset').choices(['reject', 'reset']))
    // Declared here for now; options.ts will take it over with the others.
    .option('--protocol <revision>', `what if the clients had spoken this protocol revision (${PROTOCOL_REVISIONS.join(', ')}): which calls a broken stream loses or runs twice`)
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (paths: string[], flags: WhatifFlags) => done(await whatif(paths, flags, io)));
}

/** What-if is a question, not a gate: exit 0, or 2 when an input was unusable. */
async function whatif(paths: string[], flags: WhatifFlags, io: Io): Promise<number> {
  const config = loadConfig(flags.config);
  const change = policyChange(flags, config.retention);
  const { disabled, ...baseline } = detectOptions({}, config);
  const ws = await openWorkspace(paths, flags, io);
  try {
    const report = whatIf(ws.db, { baseline, disabled, change });
    io.out(flags.format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderWhatIfText(report));
    return ws.unusable ? 2 : 0;
  } finally {
    ws.db.close();
  }
}

/** The flags name the change; a retention in the config file is the change when no flag names one. */
function policyChange(flags: WhatifFlags, configRetention: PolicyChange['retention']): PolicyChange {
  const maxAgeMs = flags.retention === undefined ? undefined : duration(flags.retention, '--retention');
  const maxEvents = flags.retentionEvents === undefined ? undefined : positiveInt(flags.retentionEvents, '--retention-events');
  const flagged = maxAgeMs !== undefined || maxEvents !== undefined;
  const change: PolicyChange = {
    retention: flagged ? { ...(maxAgeMs !== undefined && { maxAgeMs }), ...(maxEvents !== undefined && { maxEvents }) } : configRetention,
    fenceGraceMs: flags.fenceGrace === undefined ? undefined : duration(flags.fenceGrace, '--fence-grace'),
    stormCount: flags.stormCount === undefined ? undefined : positiveInt(flags.stormCount, '--storm-count'),
    stormWindowMs: flags.stormWindow === undefined ? undefined : duration(flags.stormWindow, '--storm-window'),
    duplicateCallWindowMs: flags.dupWindow === undefined ? undefined : duration(flags.dupWindow, '--dup-window'),
    unresumable: flags.onUnresumable,
    protocolVersion: flags.protocol === undefined ? undefined : protocolRevision(flags.protocol),
  };
  if (Object.values(change).every((v) => v === undefined)) {
    throw new UsageError('whatif: say what to change, e.g. --retention 120s (or --retention-events, --fence-grace, --storm-count, --storm-window, --dup-window, --on-unresumable, --protocol)');
  }
  return change;
}

function protocolRevision(s: string): ProtocolRevision {
  if (!isProtocolRevision(s)) throw new UsageError(`--protocol: unknown revision "${s}": expected one of ${PROTOCOL_REVISIONS.join(', ')}`);
  return s;
}
