// resumescope as a library: the analyzer's pipeline (read → normalize → store →
// detect → render). The decision engine and the SDK instrumentation have their
// own entry points: resumescope/engine and resumescope/instrument.
export { analyzeFiles, analyzeSources, loadWorkspace, type AnalyzeOptions, type AnalyzedReport, type UnusableInput, type Workspace, type ProgressEvent, type ProgressListener } from './api.js';
export { InputError } from './read/sources.js';
export { detect } from './pipeline/derived.js';
export type { RunOptions } from './detect/run.js';
export { render, FORMATS, type Format, type RenderOptions } from './render/index.js';
export { exitCodeFor } from './findings/gate.js';
export { RULES, RULE_IDS, ruleOf, type Rule, type RuleId } from './detect/rules/index.js';
export type { RuleModule, RuleExplanation, RuleFamily } from './detect/rule.js';
export type { Finding, NotKnowable, Report, Summary } from './model/finding.js';
export type { NormalizedRecord, RecordKind } from './model/record.js';
