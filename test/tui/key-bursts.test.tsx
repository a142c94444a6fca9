import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/tui/App.js';
import { fixtureLoadDetail, fixtureModel } from './fixtures.js';
import { plain, waitFor } from './helpers.js';

// QA pass: keys that reach the dashboard in one read are dropped. Repro:
// `tmux new-session -d -s qa -x 100 -y 30 'npx resumescope tui samples/'`,
// then `tmux send-keys -t qa -l jjjjj`: the selection does not move at all
// (`tmux send-keys -t qa j` five times, with a pause, moves it 5 rows). A
// held-down j (key repeat), a fast typist or an ssh link delivers such bursts;
// ink hands the handler the whole chunk ("jjjjj"), which matches no key.
// Arrow keys in one burst do move (ink splits escape sequences).

afterEach(() => cleanup());

describe('tui: keys arriving together', () => {
  // Was a bug: a burst of j's in one stdin chunk moves the selection 0 rows instead of one row per j.
  it('"jj" in one chunk moves the selection two rows, as two separate j presses do', async () => {
    const app = render(<App model={fixtureModel()} loadDetail={vi.fn(fixtureLoadDetail)} width={80} height={24} onQuit={vi.fn()} />);
    const text = () => plain(app.lastFrame());
    expect(text()).toContain('[Findings 1/5]');
    app.stdin.write('jj');
    await waitFor(() => expect(text()).toContain('[Findings 3/5]'));
  });
});
