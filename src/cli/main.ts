// Entry point of the `samsa` command (`bin/samsa.js` imports the compiled form of this file).
// Each command is imported when it runs: only `samsa start` loads the broker, so client
// commands start without parsing its modules.

import { didYouMean } from './suggest.js';
import { packageVersion } from './version.js';

const USAGE = `Usage: samsa <command> [options]

Commands:
  start     run a broker (samsa start --help)
  topics    create, alter, delete, list, describe topics (samsa topics --help)
  produce   send lines of stdin as records (samsa produce --help)
  consume   print records (samsa consume --help)
  groups    list, describe, reset offsets of, delete consumer groups (samsa groups --help)
  configs   describe and alter configs of topics, brokers, users, clients (samsa configs --help)
  cluster   cluster id, controller, brokers with racks and endpoints (samsa cluster --help)
  records   delete records before offsets: samsa records --delete (samsa records --help)
  log-dirs  log directories and partition sizes per broker (samsa log-dirs --help)
  acls      add, remove, list ACLs (samsa acls --help)
  transactions  list, describe, find hanging, abort transactions (samsa transactions --help)
  fan-out   copy a topic into one with more partitions, exactly once (samsa fan-out --help)
  console   serve the web console for a cluster (samsa console --help)
  perf      benchmarks: samsa perf produce --help, samsa perf consume --help
  zookeeper run a ZooKeeper server for a broker cluster (samsa zookeeper --help)

  samsa --version prints the version.
`;

const COMMANDS = [
  'start',
  'topics',
  'produce',
  'consume',
  'groups',
  'configs',
  'cluster',
  'records',
  'log-dirs',
  'acls',
  'transactions',
  'fan-out',
  'console',
  'perf',
  'zookeeper',
  'help',
];

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      await (await import('./start.js')).runStart(rest);
      return -1; // keeps running until a signal
    case 'perf':
      if (rest[0] === 'consume')
        return (await import('./commands/perf-consume.js')).runPerfConsume(rest.slice(1));
      return (await import('./commands/perf-produce.js')).runPerf(rest);
    case 'consume':
      return (await import('./commands/consume.js')).runConsume(rest);
    case 'produce':
      return (await import('./commands/produce.js')).runProduce(rest);
    case 'zookeeper':
      return (await import('./commands/zookeeper.js')).runZooKeeper(rest);
    case 'topics':
      return (await import('./commands/topics.js')).runTopics(rest);
    case 'groups':
      return (await import('./commands/groups.js')).runGroups(rest);
    case 'console':
      return (await import('./commands/console.js')).runConsole(rest); // -1: keeps serving
    case 'configs':
      return (await import('./commands/configs.js')).runConfigs(rest);
    case 'cluster':
      return (await import('./commands/cluster.js')).runCluster(rest);
    case 'records':
      return (await import('./commands/records.js')).runRecords(rest);
    case 'log-dirs':
      return (await import('./commands/log-dirs.js')).runLogDirs(rest);
    case 'acls':
      return (await import('./commands/acls.js')).runAcls(rest);
    case 'transactions':
      return (await import('./commands/transactions.js')).runTransactions(rest);
    case 'fan-out':
      return (await import('./commands/fan-out.js')).runFanOut(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 1 : 0;
    case '--version':
    case '-V':
    case 'version':
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    default:
      process.stderr.write(
        `samsa: unknown command ${JSON.stringify(command)}${didYouMean(command, COMMANDS)}; samsa --help lists the commands\n`,
      );
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  async (e: unknown) => {
    // One line for what the user can fix (a bad flag or config, a port in use, a log dir that is
    // a file); a stack only for what nobody foresaw.
    const { describeFailure } = await import('./errors.js');
    const line = describeFailure(e);
    const err = e instanceof Error ? e : new Error(String(e));
    process.stderr.write(`samsa: ${line ?? err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
