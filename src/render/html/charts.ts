import { text } from './escape.js';
import type { ChartSeries } from './options.js';

// The dashboard's three charts as inline SVG, drawn from the series the
// dashboard computes (tui/wire/series.ts), over the whole log. Counts get
// whole-number ticks; each bar says its interval and count on hover.

const W = 560;
const H = 200;
const M = { left: 44, right: 10, top: 10, bottom: 34 };
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;
const DECISIONS = ['resume', 'attach', 'fresh', 'reject'] as const;

export function chartsSection(series: ChartSeries | undefined): string {
  const head = '<section id="charts"><h2>Charts</h2>';
  if (series === undefined) return `${head}<p class="note">Charts are drawn from the store: <code>resumescope analyze --format html</code> draws them.</p></section>`;
  if (series.labels.length === 0) return `${head}<p class="none">The log holds no upgrade and no 404: nothing to chart.</p></section>`;
  const width = intervalSeconds(series.labels);
  const per = width === undefined ? 'per interval' : `per ${humanSeconds(width)}`;
  const day = series.labels[0]!.slice(0, 10);
  const totals = (xs: number[]) => xs.reduce((a, b) => a + b, 0).toLocaleString('en-US');
  return `${head}<p class="note">Over the whole log, ${text(per)} (times in UTC, from ${text(day)}).</p><div class="charts">
${figure('Reconnect decisions over time', stacked(series), DECISIONS.map((d) => [d, `dec-${d}`, totals(series.decisions[d])] as const))}
${figure('Replayed versus re-emitted', lines(series), [['replayed', 'ln-replayed', totals(series.replayed)], ['re-emitted', 'ln-reemitted', totals(series.reemitted)]])}
${figure(`404 responses (${per})`, bars(series.labels, series.http404, 'bar-404', '404s'), [['404', 'bar-404', totals(series.http404)]])}
</div></section>`;
}

function figure(title: string, body: string, keys: readonly (readonly [string, string, string])[]): string {
  const legend = keys.map(([name, cls, total]) => `<span class="key"><span class="swatch ${cls}"></span>${text(name)} <b>${text(total)}</b></span>`).join(' ');
  return `<figure class="chart"><figcaption>${text(title)}</figcaption><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${text(title)}">${body}</svg><p class="keys">${legend}</p></figure>`;
}

function stacked(s: ChartSeries): string {
  const n = s.labels.length;
  const sums = s.labels.map((_, i) => DECISIONS.reduce((a, d) => a + (s.decisions[d][i] ?? 0), 0));
  const { top, ticks } = scale(Math.max(0, ...sums));
  const bw = PW / n;
  const out: string[] = [axes(s.labels, ticks, top)];
  for (let i = 0; i < n; i++) {
    let base = 0;
    for (const d of DECISIONS) {
      const v = s.decisions[d][i] ?? 0;
      if (v === 0) continue;
      const h = (v / top) * PH;
      out.push(`<rect x="${fmt(M.left + i * bw + bw * 0.1)}" y="${fmt(M.top + PH - base - h)}" width="${fmt(bw * 0.8)}" height="${fmt(h)}" class="dec-${d}"><title>${text(`${hhmmss(s.labels[i]!)}: ${v} ${d}`)}</title></rect>`);
      base += h;
    }
  }
  return out.join('');
}

function lines(s: ChartSeries): string {
  const { top, ticks } = scale(Math.max(0, ...s.replayed, ...s.reemitted));
  const n = s.labels.length;
  // At the centre of each interval, as the bars and the time labels are.
  const x = (i: number) => M.left + (i + 0.5) * (PW / n);
  const y = (v: number) => M.top + PH - (v / top) * PH;
  const path = (vs: number[], cls: string) =>
    `<polyline points="${vs.map((v, i) => `${fmt(x(i))},${fmt(y(v))}`).join(' ')}" class="${cls}"/>` +
    (n <= 60 ? vs.map((v, i) => `<circle cx="${fmt(x(i))}" cy="${fmt(y(v))}" r="2.5" class="${cls}-pt"><title>${text(`${hhmmss(s.labels[i]!)}: ${v}`)}</title></circle>`).join('') : '');
  return axes(s.labels, ticks, top) + path(s.replayed, 'ln-replayed') + path(s.reemitted, 'ln-reemitted');
}

function bars(labels: string[], values: number[], cls: string, unit: string): string {
  const { top, ticks } = scale(Math.max(0, ...values));
  const bw = PW / labels.length;
  const out = [axes(labels, ticks, top)];
  values.forEach((v, i) => {
    if (v === 0) return;
    const h = (v / top) * PH;
    out.push(`<rect x="${fmt(M.left + i * bw + bw * 0.1)}" y="${fmt(M.top + PH - h)}" width="${fmt(bw * 0.8)}" height="${fmt(h)}" class="${cls}"><title>${text(`${hhmmss(labels[i]!)}: ${v} ${unit}`)}</title></rect>`);
  });
  return out.join('');
}

function axes(labels: string[], ticks: number[], top: number): string {
  const out: string[] = [`<line x1="${M.left}" y1="${M.top + PH}" x2="${W - M.right}" y2="${M.top + PH}" class="axis"/>`];
  for (const t of ticks) {
    const y = fmt(M.top + PH - (t / top) * PH);
    out.push(`<line x1="${M.left}" y1="${y}" x2="${W - M.right}" y2="${y}" class="grid"/><text x="${M.left - 6}" y="${y}" dy="4" text-anchor="end" class="tick">${t.toLocaleString('en-US')}</text>`);
  }
  const picks = [...new Set([0, Math.floor((labels.length - 1) / 2), labels.length - 1])];
  const bw = PW / labels.length;
  for (const i of picks) {
    const x = fmt(M.left + i * bw + bw / 2);
    out.push(`<text x="${x}" y="${H - 12}" text-anchor="${i === 0 && labels.length > 1 ? 'start' : i === labels.length - 1 && labels.length > 1 ? 'end' : 'middle'}" class="tick">${text(hhmmss(labels[i]!))}</text>`);
  }
  return out.join('');
}

/** Whole-number ticks (steps of 1, 2 or 5 times a power of ten), at most 5 above zero. */
export function scale(max: number): { top: number; ticks: number[] } {
  if (max <= 0) return { top: 1, ticks: [0, 1] };
  let step = 1;
  for (let p = 1; ; p *= 10) {
    const s = [1, 2, 5].map((k) => k * p).find((k) => Math.ceil(max / k) <= 5);
    if (s !== undefined) {
      step = s;
      break;
    }
  }
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= top; t += step) ticks.push(t);
  return { top, ticks };
}

function intervalSeconds(labels: string[]): number | undefined {
  if (labels.length < 2) return undefined;
  return (Date.parse(labels[1]!) - Date.parse(labels[0]!)) / 1000;
}

function humanSeconds(s: number): string {
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

const hhmmss = (iso: string) => iso.slice(11, 19);
const fmt = (n: number) => String(Math.round(n * 10) / 10);
