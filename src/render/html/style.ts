// The report's stylesheet, inline and allowed by its hash (page.ts). Severity
// colours follow the text report's (critical magenta, error red, warning
// amber, info cyan); print drops the navigation and keeps colours.

export const STYLE = `
:root { --critical: #8e24aa; --error: #c62828; --warning: #b26a00; --info: #00838f; --ok: #2e7d32;
  --ink: #1d2330; --muted: #5b6475; --rule: #d9dde5; --paper: #fff; --tint: #f5f7fa;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: var(--paper); }
header.top { padding: 16px 24px 10px; border-bottom: 3px solid var(--ink); }
header.top h1 { margin: 0; font-size: 24px; }
header.top p { margin: 2px 0 8px; color: var(--muted); }
nav.toc a { margin-right: 14px; }
main { padding: 0 24px 40px; max-width: 1400px; }
h2 { margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--rule); font-size: 20px; }
h3 { font-size: 17px; margin: 18px 0 8px; }
a { color: #1a56b0; }
code, .where, pre { font-family: var(--mono); font-size: 13px; }
.note, .none { color: var(--muted); }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 14px; }
caption { text-align: left; font-weight: 600; padding-bottom: 4px; white-space: nowrap; }
th, td { border-bottom: 1px solid var(--rule); padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.columns { display: flex; flex-wrap: wrap; gap: 12px 40px; align-items: flex-start; }
.gate { font-size: 17px; padding: 8px 12px; border-left: 6px solid; background: var(--tint); }
.gate.fail { border-color: var(--error); } .gate.pass { border-color: var(--ok); }
.gate.fail strong { color: var(--error); } .gate.pass strong { color: var(--ok); }
.tiles { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0; margin: 10px 0; }
.tile { border: 1px solid var(--rule); border-top: 4px solid var(--muted); padding: 6px 12px; min-width: 110px; }
.tile .n { display: block; font-size: 22px; font-weight: 700; font-variant-numeric: tabular-nums; }
.tile .l { color: var(--muted); }
.tile.warn { border-top-color: var(--warning); }
.tile.zero .n { color: var(--muted); font-weight: 400; }
.badge { display: inline-block; padding: 0 7px; border-radius: 3px; color: #fff; font-size: 12px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; }
.sev-critical { --sev: var(--critical); } .sev-error { --sev: var(--error); } .sev-warning { --sev: var(--warning); } .sev-info { --sev: var(--info); }
.badge, .swatch { background: var(--sev, var(--muted)); }
.tile[class*="sev-"] { border-top-color: var(--sev); }
section.severity > h3 { border-left: 6px solid var(--sev); padding-left: 8px; }
details.rule { border: 1px solid var(--rule); border-left: 4px solid var(--sev); margin: 10px 0; padding: 0 12px 8px; }
details.rule > summary { cursor: pointer; padding: 8px 0; font-size: 15px; }
.rule-id { font-weight: 700; font-size: 14px; }
.count { font-weight: 600; margin: 0 6px; }
.rule-sum { color: var(--muted); }
dl.explain { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 8px 18px; margin: 2px 0 10px; padding: 8px 10px; font-size: 13.5px; background: var(--tint); }
dl.explain dt { font-weight: 700; }
dl.explain dd { margin: 0; }
.finding { border-top: 1px solid var(--rule); padding: 8px 0; break-inside: avoid; }
.finding .meta { color: var(--muted); font-size: 13px; }
.finding .num { font-weight: 700; color: var(--sev); }
.finding .msg { margin: 2px 0 4px; }
ol.evidence { margin: 0; padding-left: 18px; font-size: 12.5px; }
ol.evidence li { margin: 4px 0; }
ol.evidence .where { display: block; color: var(--muted); }
ol.evidence code { display: block; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; background: var(--tint); padding: 2px 6px; }
nav.pager { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; font-size: 14px; }
nav.pager input { width: 5em; }
nav.pager[hidden] { display: none; }
article.timeline { margin: 18px 0 28px; }
.incarnations { margin: 2px 0; font-size: 14px; }
.swim-wrap { overflow-x: auto; border: 1px solid var(--rule); margin: 6px 0; }
.legend { font-size: 13px; color: var(--muted); }
.legend svg { vertical-align: middle; margin-left: 10px; }
svg text { font-family: var(--mono); font-size: 11px; fill: var(--ink); }
svg .t, svg .w, svg .tick, svg .gap { fill: var(--muted); }
svg .refs { font-weight: 700; fill: var(--ink); }
svg .lane-head, td.lane-head { font-weight: 700; font-family: var(--mono); }
svg .k-upgrade { font-weight: 700; }
.band { fill: var(--sev); opacity: .14; }
.life { stroke: #7a8496; stroke-width: 2; }
.life.session { stroke: var(--rule); stroke-dasharray: 2 3; }
.life.zombie { stroke: var(--error); stroke-dasharray: 5 4; }
.life.open { stroke-dasharray: none; }
.ev-sent { fill: #546e7a; } .ev-replayed { fill: #fff; stroke: #6a1b9a; stroke-width: 1.6; }
.up-resume { fill: #1565c0; } .up-attach { fill: #00897b; } .up-fresh { fill: #ef6c00; } .up-reject { fill: #c62828; } .up-other { fill: #777; }
.handover { stroke: #1565c0; stroke-width: 1.4; } .arrowhead { fill: #1565c0; }
.opened { fill: #7a8496; } .closed { fill: var(--ink); } .fence { fill: var(--error); }
.created { fill: var(--ok); } .ended { stroke: var(--ink); stroke-width: 2; }
.req-sent { fill: #fff; stroke: #ef6c00; stroke-width: 2; }
.req-answered { fill: var(--ok); stroke: var(--ok); } .req-timed_out { fill: var(--error); stroke: var(--error); }
.req-cancelled { fill: #9e9e9e; stroke: #9e9e9e; } .req-pending { fill: #ef6c00; stroke: #ef6c00; opacity: .55; }
.req-end { stroke-width: 2.5; }
.trimmed { stroke: #6a1b9a; stroke-width: 2; stroke-dasharray: 2 2; } .other { fill: #b0b7c3; }
table.lanes { font-size: 13px; }
.charts { display: flex; flex-wrap: wrap; gap: 20px; }
figure.chart { margin: 0; border: 1px solid var(--rule); padding: 8px; }
figure.chart figcaption { font-weight: 600; }
figure.chart svg { max-width: 100%; height: auto; }
.axis { stroke: var(--ink); } .grid { stroke: var(--rule); }
.dec-resume { fill: #1565c0; background: #1565c0; } .dec-attach { fill: #00897b; background: #00897b; }
.dec-fresh { fill: #ef6c00; background: #ef6c00; } .dec-reject { fill: #c62828; background: #c62828; }
.ln-replayed { fill: none; stroke: #6a1b9a; stroke-width: 2; background: #6a1b9a; } .ln-replayed-pt { fill: #6a1b9a; }
.ln-reemitted { fill: none; stroke: #2e7d32; stroke-width: 2; background: #2e7d32; } .ln-reemitted-pt { fill: #2e7d32; }
.bar-404 { fill: #c62828; background: #c62828; }
.keys { margin: 4px 0 0; font-size: 13px; }
.swatch { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 10px; }
ul.ids { columns: 3 16em; font-size: 13px; }
table.not-knowable td { font-size: 14px; }
table.not-knowable td:last-child code { white-space: nowrap; }
table.not-knowable details summary { cursor: pointer; white-space: nowrap; }
table.rejected td:last-child code { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
footer { padding: 12px 24px; color: var(--muted); border-top: 1px solid var(--rule); font-size: 13px; }
@media print {
  * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  body { font-size: 11pt; }
  nav.toc, nav.pager { display: none; }
  main { max-width: none; }
  .swim-wrap { overflow: visible; border: none; }
  details.rule, article.timeline, figure.chart { break-inside: avoid-page; }
  a { color: inherit; text-decoration: none; }
}
`;
