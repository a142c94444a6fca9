// Preloaded into a measured child (node --import): writes the child's peak RSS
// (KB, from getrusage) to $BENCH_RSS_OUT when it exits, however it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_RSS_OUT) writeFileSync(process.env.BENCH_RSS_OUT, String(process.resourceUsage().maxRSS));
});
