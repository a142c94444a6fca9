import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { showLoading, type Keyboard, type LoadingScreen } from '../../src/tui/wire/terminal.js';

// Keys typed while a large log loads: the terminal is in raw mode from the
// loading frame on (nothing echoed), q and ctrl+c quit, the rest is dropped.

class FakeStdout extends EventEmitter {
  isTTY = true;
  columns = 80;
  rows = 24;
  written = '';
  write = (chunk: string) => {
    this.written += chunk;
    return true;
  };
}

/** A terminal's keys, as ink reads them: 'readable', then read() until null. */
class FakeKeys extends EventEmitter {
  isTTY = true;
  raw: boolean[] = [];
  private pending: string[] = [];
  setRawMode(on: boolean) {
    this.raw.push(on);
    return this;
  }
  read() {
    return this.pending.shift() ?? null;
  }
  /** Keys that arrived; told to the listeners, as the terminal's data comes in a turn of the event loop. */
  type(data: string) {
    this.pending.push(data);
    this.emit('readable');
  }
  /** Keys the stream holds, not yet told (they came in during a long synchronous step). */
  hold(data: string) {
    this.pending.push(data);
  }
  get unread() {
    return this.pending.length;
  }
}

const screens: LoadingScreen[] = [];
afterEach(async () => {
  for (const s of screens.splice(0)) await s.close();
});

function loading() {
  const stdout = new FakeStdout();
  const keys = new FakeKeys();
  const onQuit = vi.fn();
  const keyboard: Keyboard = { stream: keys as unknown as NodeJS.ReadStream, close: () => {} };
  const screen = showLoading(stdout as unknown as NodeJS.WriteStream, keyboard, onQuit);
  screens.push(screen);
  return { stdout, keys, onQuit, screen };
}

describe('the loading frame and the keyboard', () => {
  it('puts the terminal in raw mode when the first frame is drawn, so typed keys are not echoed', () => {
    // As the frame is mounted (ink draws it then, except in CI, where it draws only the last frame).
    const { keys } = loading();
    expect(keys.raw).toEqual([true]);
  });

  it('quits on q, and on ctrl+c (a key in raw mode, not SIGINT), saying which', () => {
    const a = loading();
    a.keys.type('q');
    expect(a.onQuit).toHaveBeenCalledWith('q');
    const b = loading();
    b.keys.type('\x03');
    expect(b.onQuit).toHaveBeenCalledWith('ctrl+c');
  });

  it('ignores other keys (PgDn, 2, enter, Q, esc) and leaves none for the dashboard to replay', async () => {
    const { keys, onQuit, screen } = loading();
    for (const k of ['\x1b[6~', '2', '\r', 'Q', '\x1b']) keys.type(k);
    keys.hold('x');
    await screen.close();
    expect(onQuit).not.toHaveBeenCalled();
    expect(keys.unread).toBe(0);
    // Raw mode is not turned off between the frame and the dashboard: a key typed then is not echoed.
    expect(keys.raw).toEqual([true]);
  });

  it('still quits on a q that came in while the last step ran, when it closes', async () => {
    const { keys, onQuit, screen } = loading();
    keys.hold('q');
    await screen.close();
    expect(onQuit).toHaveBeenCalledWith('q');
  });

  it('stops listening once closed: a key then is the dashboard\'s', async () => {
    const { keys, onQuit, screen } = loading();
    await screen.close();
    keys.type('q');
    expect(onQuit).not.toHaveBeenCalled();
    expect(keys.unread).toBe(1);
  });
});
