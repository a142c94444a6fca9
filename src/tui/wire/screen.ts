// The dashboard draws on the terminal's alternate screen, as less, lnav and k9s
// do: the user's screen and scrollback are as they were once it closes.
//
// Ink 6.8 has no option for that, and when a frame is as tall as the terminal
// (the dashboard's always are) it redraws with ansi-escapes' clearTerminal,
// ESC[2J ESC[3J ESC[H, on every frame (ink.js, `lastOutputHeight >= rows`).
// ESC[3J erases the scrollback, on the alternate screen too in xterm and VTE.
// So ink is given a stand-in for stdout that drops ESC[3J (ESC[2J ESC[H
// still clears the alternate screen before each frame), and that drops
// whatever ink writes once the screen is left: an ink instance still mounted
// at exit unmounts from its exit hook, which runs after ours, and would
// otherwise draw its last frame over the user's restored screen.

export const ENTER_ALT_SCREEN = '\x1b[?1049h';
export const LEAVE_ALT_SCREEN = '\x1b[?1049l';
/** Erase the scrollback (xterm's ED 3): never sent. */
export const ERASE_SCROLLBACK = '\x1b[3J';
const CLEAR_AND_HOME = '\x1b[2J\x1b[H';
const SHOW_CURSOR = '\x1b[?25h';

export interface FullScreen {
  /** Where ink draws: the terminal, without ESC[3J, and nothing once left. */
  stdout: NodeJS.WriteStream;
  /** Back to the user's screen, the cursor where it was before (a fresh line after the command); once. */
  leave(): void;
}

type Write = (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;

/** Switches `real` to the alternate screen until leave(), or the process's exit, whichever comes first. */
export function enterFullScreen(real: NodeJS.WriteStream = process.stdout): FullScreen {
  let left = false;
  const write: Write = (chunk, encoding, callback) => {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (left) {
      // Swallowed, but acknowledged: ink's unmount waits for the callback of an empty write.
      if (typeof done === 'function') process.nextTick(done as () => void);
      return true;
    }
    const text = typeof chunk === 'string' ? chunk.replaceAll(ERASE_SCROLLBACK, '') : chunk;
    return (real.write as Write)(text, encoding, callback);
  };
  // Everything else (columns, rows, isTTY, 'resize' listeners, the writable state) is the terminal's own.
  const stdout = new Proxy(real, {
    get(target, key) {
      if (key === 'write') return write;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const leave = () => {
    if (left) return;
    left = true;
    process.off('exit', leave);
    process.off('uncaughtExceptionMonitor', leave);
    real.write(SHOW_CURSOR + LEAVE_ALT_SCREEN);
  };
  // A backstop for an exit that skips the caller's leave (process.exit, a crash: before its stack is printed).
  process.on('exit', leave);
  process.on('uncaughtExceptionMonitor', leave);
  // The alternate screen keeps the cursor where it was: drawn from the top, a frame as tall as the terminal does not scroll.
  real.write(ENTER_ALT_SCREEN + CLEAR_AND_HOME);
  return { stdout, leave };
}
