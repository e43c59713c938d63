// Entry point of the `samsa` command (`bin/samsa.js` imports the compiled form of this file).

import { ConfigError } from '../broker/config/broker-config.js';
import { PropertiesSyntaxError } from '../broker/config/properties.js';
import { runStart, START_USAGE, UsageError } from './start.js';

const USAGE = `Usage: samsa <command> [options]

Commands:
  start     run a broker (samsa start --help)
  topics    create, delete, list, describe topics (samsa topics --help)
  produce   send lines of stdin as records (samsa produce --help)
  consume   print records (samsa consume --help)
  perf      benchmarks: samsa perf produce --help, samsa perf consume --help
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      await runStart(rest);
      return -1; // keeps running until a signal
    case 'perf':
      if (rest[0] === 'consume') return (await import('./commands/perf-consume.js')).runPerfConsume(rest.slice(1));
      return (await import('./commands/perf-produce.js')).runPerf(rest);
    case 'consume':
      return (await import('./commands/consume.js')).runConsume(rest);
    case 'produce':
      return (await import('./commands/produce.js')).runProduce(rest);
    case 'topics':
      return (await import('./commands/topics.js')).runTopics(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 1 : 0;
    default:
      process.stderr.write(`samsa: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    const code = (err as { code?: string }).code ?? '';
    if (err instanceof UsageError || code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`samsa: ${err.message}\n\n${START_USAGE}`);
    } else if (err instanceof ConfigError || err instanceof PropertiesSyntaxError) {
      process.stderr.write(`samsa: invalid configuration: ${err.message}\n`);
    } else {
      process.stderr.write(`samsa: ${err.stack ?? err.message}\n`);
    }
    process.exit(1);
  },
);
