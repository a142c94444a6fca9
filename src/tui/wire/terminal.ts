import { render } from 'ink';
import { createElement } from 'react';
import { colourWanted } from '../../render/colour.js';
import { ColourContext } from '../components/Line.js';
import { Loading } from '../components/Loading.js';
import type { DashboardModel, SessionDetail } from '../view-model.js';
import type { Keyboard } from './keyboard.js';
import { renderDashboard, type RenderDashboardOptions } from '../run.js';

// The dashboard on the process's terminal, driven from outside: the commands
// tell it when the model changed and, for a bounded or interrupted run, when
// to stop (as if the user had pressed ctrl+c).

export { cannotDrawDashboard, openKeyboard, type Keyboard } from './keyboard.js';

export interface RunningDashboard {
  /** The model changed: redraw (throttled by the dashboard). */
  notify(): void;
  /** Ends the dashboard from outside; `done` resolves once it is unmounted. */
  stop(): void;
  /** Resolves when the dashboard is gone (the user quit, or stop()). */
  done: Promise<void>;
}

export function startDashboard(
  getModel: () => DashboardModel,
  loadDetail: (session: string) => SessionDetail | undefined,
  keys: Keyboard,
  extras: Pick<RenderDashboardOptions, 'loadRejected' | 'openLine'> = {},
  /** The process's terminal, as enterFullScreen gives it. */
  stdout: NodeJS.WriteStream = process.stdout,
): RunningDashboard {
  const listeners = new Set<() => void>();
  let finished = false;
  const done = renderDashboard(getModel, loadDetail, {
    ...extras,
    stdout,
    patchConsole: true,
    stdin: keys.stream,
    subscribe: (onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
  }).finally(() => {
    finished = true;
  });
  return {
    notify: () => {
      for (const l of listeners) l();
    },
    stop: () => {
      if (finished) return;
      // The dashboard offers no handle to unmount it; ctrl+c quits it from any state, so it is fed one.
      keys.stream.unshift('\x03');
    },
    done,
  };
}

export interface LoadingScreen {
  progress(source: string, lines: number): void;
  /** Switches to "judging" and gives the terminal a moment to draw it before a long synchronous step. */
  judging(): Promise<void>;
  /**
   * Takes the keys typed so far (q and ctrl+c still quit; the others are dropped, not handed to the
   * dashboard), then clears the frame. The dashboard should be drawn right after, in the same turn.
   */
  close(): Promise<void>;
}

/** Quitting while loading: `q` (the dashboard's quit key) or ctrl+c. */
export type LoadingQuit = 'q' | 'ctrl+c';

/**
 * A "loading N lines…" frame on the terminal while logs are read; redrawn at most every 100 ms.
 * With `keys`, the terminal is in raw mode from the first frame, so that nothing typed is echoed onto
 * it, and `onQuit` is called for q or ctrl+c (in raw mode ctrl+c is a key, not SIGINT); any other key
 * is dropped, and the frame says so. The load runs on this thread between awaits, so a key is seen at
 * the load's next turn.
 */
export function showLoading(stdout: NodeJS.WriteStream = process.stdout, keys?: Keyboard, onQuit?: (how: LoadingQuit) => void): LoadingScreen {
  let lines = 0;
  let source = '';
  let phase: 'reading' | 'judging' = 'reading';
  let keyIgnored = false;
  const seen = new Map<string, number>();
  const colour = colourWanted(Boolean(stdout.isTTY), process.env);
  const element = () =>
    createElement(ColourContext.Provider, { value: colour }, createElement(Loading, { lines, source, phase, keyIgnored, width: stdout.columns || 80 }));
  const instance = render(element(), { stdout, patchConsole: false, exitOnCtrlC: false });
  const stream = keys?.stream;
  // As ink reads keys ('readable', then read()): the dashboard's ink takes the stream over in the same mode.
  const onReadable = () => {
    for (let chunk = stream!.read() as string | Buffer | null; chunk !== null; chunk = stream!.read() as string | Buffer | null) {
      const text = chunk.toString();
      if (text.includes('\x03')) return onQuit?.('ctrl+c');
      if (text.includes('q')) return onQuit?.('q');
      if (!keyIgnored) {
        keyIgnored = true;
        instance.rerender(element());
      }
    }
  };
  if (stream?.isTTY) {
    stream.setRawMode(true);
    stream.on('readable', onReadable);
  }
  let last = 0;
  return {
    progress(name, n) {
      seen.set(name, n);
      source = name;
      lines = [...seen.values()].reduce((a, b) => a + b, 0);
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      instance.rerender(element());
    },
    async judging() {
      phase = 'judging';
      instance.rerender(element());
      await new Promise((r) => setTimeout(r, 20));
    },
    async close() {
      if (stream?.isTTY) {
        // One turn of the event loop reads what the terminal holds (poll comes before setImmediate's check phase).
        await new Promise((r) => setImmediate(r));
        onReadable();
        stream.off('readable', onReadable);
        // Raw mode stays on: the dashboard takes it over, and a key typed in between is not echoed.
      }
      instance.clear();
      instance.unmount();
    },
  };
}
