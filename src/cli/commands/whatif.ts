import { jsonChunks } from '../../render/json.js';
import { Option, type Command } from 'commander';
import { PROTOCOL_REVISIONS, isProtocolRevision, type ProtocolRevision } from '../../engine/index.js';
import { renderWhatIfText, whatIf, type PolicyChange } from '../../whatif/index.js';
import { UsageError, writeOut, type Io } from '../io.js';
import { SETTINGS, WHATIF_BASELINE_SETTINGS, WHATIF_SETTINGS } from '../../findings/settings.js';
import { addConfigOption, addInputOptions, addSettingOptions, detectOptions, flagKey, loadConfig, settingValue, type SettingFlags } from '../options.js';
import { openWorkspace, type InputOptions } from '../workspace.js';
import { withInputNotes } from '../input-notes.js';

interface WhatifFlags extends InputOptions, SettingFlags {
  onUnresumable?: 'reject' | 'reset';
  protocol?: string;
  format: 'text' | 'json';
}

export function registerWhatif(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('whatif')
    .description('re-judge the log under another policy (retention, fence grace, storm thresholds, protocol revision): which findings disappear or appear, which reconnect decisions flip, which calls a broken stream loses')
    .argument('[paths...]', 'log files, folders, or - for stdin (plain or .gz)');
  addConfigOption(addInputOptions(cmd), 'the thresholds and disabled rules as logged');
  addSettingOptions(cmd, WHATIF_SETTINGS, 'whatif');
  addSettingOptions(cmd, WHATIF_BASELINE_SETTINGS)
    .addOption(new Option('--on-unresumable <choice>', 'what if an unresumable Last-Event-ID were rejected (409) or reset').choices(['reject', 'reset']))
    // Declared here for now; options.ts will take it over with the others.
    .option('--protocol <revision>', `what if the clients had spoken this protocol revision (${PROTOCOL_REVISIONS.join(', ')}): which calls a broken stream loses or runs twice`)
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (paths: string[], flags: WhatifFlags) => done(await whatif(paths, flags, io)));
}

/** What-if is a question, not a gate: exit 0, or 2 when an input was unusable. */
async function whatif(paths: string[], flags: WhatifFlags, io: Io): Promise<number> {
  const config = loadConfig(flags.config, io, { name: 'whatif', unread: ['failOn'] });
  const change = policyChange(flags, config.retention);
  // The world as logged: the config file, and the flags that set it as analyze's do (not the questions).
  const baselineFlags = Object.fromEntries(WHATIF_BASELINE_SETTINGS.map((name) => [flagKey(name), flags[flagKey(name)]]));
  const { disabled, ...baseline } = detectOptions(baselineFlags, config);
  const ws = await openWorkspace(paths, flags, io);
  try {
    const whatIfReport = await whatIf(ws.db, { baseline, disabled, change, cached: flags.db !== undefined });
    const unusable = ws.unusableInputs.map(({ name, reason }) => ({ name, reason }));
    const report = unusable.length > 0 ? { ...whatIfReport, unusable_inputs: unusable } : whatIfReport;
    // JSON a piece at a time: a what-if of a long log lists thousands of flips.
    if (flags.format === 'json') await writeOut(io, jsonLines(report));
    // Led by the unusable inputs and followed by the rejected lines, as analyze's text is.
    else await writeOut(io, withInputNotes([renderWhatIfText(report)], ws.unusableInputs, report.rejected_lines));
    return ws.unusable ? 2 : 0;
  } finally {
    ws.db.close();
  }
}

/** The flags name the change; a retention in the config file is the change when no flag names one. */
function policyChange(flags: WhatifFlags, configRetention: PolicyChange['retention']): PolicyChange {
  // The flags alone: a config value is the baseline, not the change (retention aside, below).
  const flag = <T>(name: (typeof WHATIF_SETTINGS)[number]) => settingValue(name, flags, {}) as T | undefined;
  const maxAgeMs = flag<number>('retentionMaxAgeMs');
  const maxEvents = flag<number>('retentionMaxEvents');
  const flagged = maxAgeMs !== undefined || maxEvents !== undefined;
  const change: PolicyChange = {
    retention: flagged ? { ...(maxAgeMs !== undefined && { maxAgeMs }), ...(maxEvents !== undefined && { maxEvents }) } : configRetention,
    fenceGraceMs: flag<number>('fenceGraceMs'),
    stormCount: flag<number>('stormCount'),
    stormWindowMs: flag<number>('stormWindowMs'),
    duplicateCallWindowMs: flag<number>('duplicateCallWindowMs'),
    unresumable: flags.onUnresumable,
    protocolVersion: flags.protocol === undefined ? undefined : protocolRevision(flags.protocol),
  };
  if (Object.values(change).every((v) => v === undefined)) {
    const others = [...WHATIF_SETTINGS.slice(1).map((n) => SETTINGS[n].flag), '--on-unresumable', '--protocol'];
    throw new UsageError(`whatif: say what to change, e.g. ${SETTINGS.retentionMaxAgeMs.flag} 120s (or ${others.join(', ')})`);
  }
  return change;
}

function protocolRevision(s: string): ProtocolRevision {
  if (!isProtocolRevision(s)) throw new UsageError(`--protocol: unknown revision "${s}": expected one of ${PROTOCOL_REVISIONS.join(', ')}`);
  return s;
}

function* jsonLines(report: unknown): Generator<string> {
  yield* jsonChunks(report);
  yield '\n';
}
