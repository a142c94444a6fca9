export * from './view-model.js';
export { App, type AppProps } from './App.js';
export { renderDashboard, DEFAULT_THROTTLE_MS, type RenderDashboardOptions } from './run.js';
