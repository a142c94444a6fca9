/** What-if: the log re-judged under another retention, fence grace, storm thresholds or unresumable policy. */
export { whatIf } from './what-if.js';
export { renderWhatIfText } from './render-text.js';
export { diffFindings } from './diff.js';
export { describeChange, headlines } from './headline.js';
export type { Flip, PolicyChange, WhatIfOptions, WhatIfPolicy, WhatIfReport } from './types.js';
