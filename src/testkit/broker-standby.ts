// A broker process started ahead of need (cluster.ts, process mode): it loads the broker's
// modules — about 80 % of the CPU a `samsa start` takes before it serves (0.85 of 1.05 s
// compiled, more through tsx) — and then waits for its command line, one JSON array on stdin.
// Given it, it runs `samsa start` exactly as `node src/cli/main.ts start ...` would. A test
// that kills -9 and restarts brokers gets a restart that only recovers logs and registers,
// while the test waited for the killed broker's session to expire anyway. Without a command
// line (stdin closed: the test process is gone) it exits.

import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(
  new URL(`../cli/main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

async function commandLine(): Promise<string[] | null> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    const end = text.indexOf('\n');
    if (end >= 0) return JSON.parse(text.slice(0, end)) as string[];
  }
  return null;
}

await Promise.all([import('../cli/start.js'), import('../broker/broker.js')]);
const args = await commandLine();
if (args === null) process.exit(0);
// The broker must not be kept alive, nor stopped, by a pipe it no longer reads.
process.stdin.destroy();
process.argv = [process.argv[0]!, MAIN, ...args];
await import('../cli/main.js');
