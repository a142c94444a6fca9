import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/tui/App.js';
import { Charts } from '../../src/tui/components/Charts.js';
import { ColourContext } from '../../src/tui/components/Line.js';
import { fixtureLoadDetail, fixtureModel, SERIES } from './fixtures.js';
import { cells, frameLines, plain } from './helpers.js';

// Terminal review 57: NO_COLOR turned colour off in every report but the dashboard, whose charts
// stayed coloured even with FORCE_COLOR=0 or TERM=dumb; and without colour the chart lines and
// their legend markers (all ■) could not be told apart.

// Chalk (under ink) decides at import whether it paints: forced here, so that a frame drawn with
// colour on carries SGR codes and one drawn with it off shows the dashboard left them out.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

afterEach(() => cleanup());

const SGR = /\u001b\[[0-9;]*m/;

function app(colour: boolean | undefined, initialState?: { pane: 'charts' }) {
  return render(
    <App
      model={fixtureModel()}
      loadDetail={fixtureLoadDetail}
      width={100}
      height={30}
      onQuit={() => {}}
      {...(colour !== undefined && { colour })}
      {...(initialState && { initialState })}
    />,
  );
}

describe('colour in the dashboard', () => {
  it('is off everywhere when the App is told so: header, feed, tabs, status bar', () => {
    expect(app(true).lastFrame()).toMatch(SGR);
    const frame = app(false).lastFrame()!;
    expect(frame).not.toMatch(SGR);
    // Nothing but the styling is lost (the selection's highlighted padding aside: the › marks it).
    const trimmed = (f: string) => frameLines(f).map((l) => l.trimEnd());
    expect(trimmed(frame)).toEqual(trimmed(plain(app(true).lastFrame())));
    expect(frame).toMatch(/^› 10:00:07 CRIT cross-principal-replay/m);
  });

  it('is off in the charts too (their series were coloured whatever the setting)', () => {
    const on = render(<Charts series={SERIES} width={80} height={18} />).lastFrame()!;
    expect(on).toMatch(SGR);
    const off = render(
      <ColourContext.Provider value={false}>
        <Charts series={SERIES} width={80} height={18} />
      </ColourContext.Provider>,
    ).lastFrame()!;
    expect(off).not.toMatch(SGR);
    expect(off).toBe(plain(on));
  });
});

describe('chart series without colour', () => {
  const text = plain(render(<Charts series={SERIES} width={80} height={18} />).lastFrame());
  const legend = (title: string) => frameLines(text).find((l) => l.startsWith(title)) ?? '';

  it('each series of a chart has its own legend marker, a sample of its line', () => {
    const markers = [...legend('decisions').matchAll(/(\S\S) (resume|attach|fresh|reject) \d+/g)].map((m) => m[1]);
    expect(markers).toEqual(['──', '━━', '══', '┄┄']);
    const two = [...legend('replayed vs re-emitted').matchAll(/(\S\S) (replayed|re-emitted) \d+/g)].map((m) => m[1]);
    expect(new Set(two).size).toBe(2);
  });

  it('each series is drawn with its own glyphs', () => {
    const plot = frameLines(text).slice(1, 6).join('\n');
    // resume (light), attach (heavy), fresh (double), reject (dashed) each leave their mark.
    for (const glyphs of [/[─│╭╮╰╯]/, /[━┃┏┓┗┛]/, /[═║╔╗╚╝]/, /[┄┆┌┐└┘]/]) expect(plot).toMatch(glyphs);
  });

  it('at 40 columns every series keeps its name: the legend wraps rather than cut', () => {
    const lines = frameLines(render(<Charts series={SERIES} width={40} height={11} />).lastFrame());
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(40);
    const all = lines.join('\n');
    for (const name of ['resume 29', 'attach 9', 'fresh 3', 'reject 8', 'replayed 123', 're-emitted 6', '404 11']) expect(all).toContain(name);
    expect(lines.length).toBeLessThanOrEqual(11);
  });

  it('at 60 columns the legend is drawn tighter on one line rather than wrapped', () => {
    const lines = frameLines(render(<Charts series={SERIES} width={60} height={9} />).lastFrame());
    expect(lines[0]).toMatch(/^decisions ─ resume 29 ━ attach 9 ═ fresh 3 ┄ reject 8/);
    expect(lines.join('\n')).toContain('404 11');
  });
});
