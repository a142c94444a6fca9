// Mounts the dashboard on the terminal. Model changes can arrive thousands of
// times a second while a log is tailed; drawing at most once per throttle
// interval keeps the event loop free for keys and for reading input.
import { render } from 'ink';
import { performance } from 'node:perf_hooks';
import { colourWanted } from '../render/colour.js';
import { App } from './App.js';
import type { LineRef } from './dashboardState.js';
import type { DashboardModel, RejectedLine, SessionDetail } from './view-model.js';

export interface RenderDashboardOptions {
  /** Minimum time between two redraws caused by model changes (default 100 ms). */
  throttleMs?: number;
  /** Registers a listener for model changes; returns the unsubscribe function. */
  subscribe: (onChange: () => void) => () => void;
  /** Where to draw and read keys from; the process's own streams by default. */
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** Route console output above the frame (default: when drawing on the process's own stdout). */
  patchConsole?: boolean;
  loadRejected?: (offset: number, limit: number) => RejectedLine[];
  openLine?: (ref: LineRef) => string | undefined;
  /** Whether to paint; by default as for every output (src/render/colour.ts: NO_COLOR, FORCE_COLOR, TERM=dumb). */
  colour?: boolean;
}

export const DEFAULT_THROTTLE_MS = 100;

/** Draws the dashboard until the user quits (q, or ctrl+c), then resolves. */
export function renderDashboard(
  getModel: () => DashboardModel,
  loadDetail: (session: string) => SessionDetail | undefined,
  opts: RenderDashboardOptions,
): Promise<void> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  const throttleMs = opts.throttleMs ?? DEFAULT_THROTTLE_MS;
  const colour = opts.colour ?? colourWanted(Boolean(stdout.isTTY), process.env);

  let timer: NodeJS.Timeout | undefined;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let closed = false;
  /** What the last frame was drawn from: the same model at the same size draws the same frame. */
  let drawn: { model: DashboardModel; columns: number; rows: number } | undefined;

  const quit = () => instance.unmount();
  const element = (model = getModel()) => {
    lastDraw = performance.now();
    drawn = { model, columns: stdout.columns, rows: stdout.rows };
    return (
      <App
        model={model}
        loadDetail={loadDetail}
        {...(opts.loadRejected && { loadRejected: opts.loadRejected })}
        {...(opts.openLine && { openLine: opts.openLine })}
        width={stdout.columns || 80}
        height={stdout.rows || 24}
        colour={colour}
        onQuit={quit}
      />
    );
  };

  // Console output would tear the frame, so ink routes it above the dashboard; but only on the
  // process's own terminal: a caller drawing elsewhere keeps its console.
  const instance = render(element(), { stdout, stdin, patchConsole: opts.patchConsole ?? opts.stdout === undefined });

  // Ink clears the whole screen before each frame as tall as the terminal: a change that draws nothing new is not drawn.
  const draw = () => {
    timer = undefined;
    if (closed) return;
    const model = getModel();
    if (drawn !== undefined && drawn.model === model && drawn.columns === stdout.columns && drawn.rows === stdout.rows) return;
    instance.rerender(element(model));
  };
  // Leading edge when idle, then at most one draw per interval; changes in between coalesce.
  const scheduleDraw = () => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(draw, Math.max(0, lastDraw + throttleMs - performance.now()));
  };
  // A resize is drawn at once: a frame laid out for the old size would wrap and scroll.
  const onResize = () => {
    clearTimeout(timer);
    draw();
  };

  const unsubscribe = opts.subscribe(scheduleDraw);
  stdout.on('resize', onResize);

  const cleanUp = () => {
    closed = true;
    clearTimeout(timer);
    timer = undefined;
    unsubscribe();
    stdout.off('resize', onResize);
  };
  return instance.waitUntilExit().then(
    () => cleanUp(),
    (error: unknown) => {
      cleanUp();
      throw error;
    },
  );
}
