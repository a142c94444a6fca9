// Preloaded into a measured child (node --import): writes the child's peak RSS
// (KB) and CPU time (user + system, every thread, in µs), both from getrusage,
// to $BENCH_RSS_OUT as JSON when it exits, however it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_RSS_OUT) {
    const u = process.resourceUsage();
    writeFileSync(process.env.BENCH_RSS_OUT, JSON.stringify({ maxRssKb: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime }));
  }
});
