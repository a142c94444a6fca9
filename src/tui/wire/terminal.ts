import { openSync } from 'node:fs';
import { ReadStream } from 'node:tty';
import type { DashboardModel, SessionDetail } from '../model.js';
import { renderDashboard } from '../run.js';

// The dashboard on the process's terminal, driven from outside: the commands
// tell it when the model changed and, for a bounded or interrupted run, when
// to stop (as if the user had pressed ctrl+c).

export interface Keyboard {
  stream: NodeJS.ReadStream;
  close(): void;
}

/**
 * Where keys come from: stdin when it is the terminal; the terminal itself
 * (/dev/tty) when stdin carries the log being watched; none without a terminal.
 */
export function openKeyboard(stdinCarriesLog: boolean): Keyboard | undefined {
  if (!stdinCarriesLog && process.stdin.isTTY) return { stream: process.stdin, close: () => process.stdin.pause() };
  try {
    const tty = new ReadStream(openSync('/dev/tty', 'r'));
    return { stream: tty as NodeJS.ReadStream, close: () => tty.destroy() };
  } catch {
    return undefined;
  }
}

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
): RunningDashboard {
  const listeners = new Set<() => void>();
  let finished = false;
  const done = renderDashboard(getModel, loadDetail, {
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
