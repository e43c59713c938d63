// What every client command shares: output streams, usage errors, argument parsing with Kafka's
// tool habits (multi-word options, negative numbers) and one-line errors for unknown flags.

import { type ParseArgsConfig, parseArgs } from 'node:util';
import { didYouMean } from '../suggest.js';

export interface CommandIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export const processIO: CommandIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

/** A mistake in the command line: reported as one line, exit status 1. */
export class CommandUsageError extends Error {}

/** Parses `k=v` words (the value may contain '='). */
export function parseKeyValues(words: readonly string[], what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const w of words) {
    const i = w.indexOf('=');
    if (i <= 0) throw new CommandUsageError(`${what} expects key=value, got "${w}"`);
    out[w.slice(0, i)] = w.slice(i + 1);
  }
  return out;
}

/**
 * Rewrites Kafka-tool argument habits into what node:util parseArgs accepts: a multi-valued
 * option followed by several words (`--producer-props a=1 b=2`) becomes repeated options, and
 * a negative number after an option (`--throughput -1`) is attached with '='.
 */
export function normalizeArgs(argv: readonly string[], multi: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith('--') ? a.slice(2) : null;
    if (name !== null && multi.includes(name)) {
      while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) out.push(a, argv[++i]!);
      continue;
    }
    if (name !== null && !a.includes('=') && i + 1 < argv.length && /^-\d+(\.\d+)?$/.test(argv[i + 1]!)) {
      out.push(`${a}=${argv[++i]!}`);
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Flags of Kafka's tools that samsa does not take, with what to use instead. */
const REPLACED_FLAGS: Record<string, string> = {
  zookeeper: 'samsa talks to the broker directly: use --bootstrap-server instead of --zookeeper',
};

/**
 * node:util parseArgs with `multi` options normalized (see normalizeArgs) and its errors turned
 * into one-line usage errors: an unknown flag is named with the closest known one, never with
 * Node's hint about positional arguments.
 */
export function parseCommand<T extends ParseArgsConfig>(
  config: T,
  multi: readonly string[] = [],
): ReturnType<typeof parseArgs<T>> {
  const args = normalizeArgs(config.args ?? [], multi);
  try {
    return parseArgs({ ...config, args } as T);
  } catch (e) {
    throw usageErrorOf(e, Object.keys(config.options ?? {}));
  }
}

function usageErrorOf(e: unknown, known: readonly string[]): unknown {
  const err = e as Error & { code?: unknown };
  if (typeof err.code !== 'string' || !err.code.startsWith('ERR_PARSE_ARGS')) return e;
  const flags = known.map((k) => `--${k}`);
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /Unknown option '([^']+)'/.exec(err.message)?.[1] ?? '?';
    const bare = flag.replace(/^-+/, '').split('=')[0]!;
    if (REPLACED_FLAGS[bare]) return new CommandUsageError(REPLACED_FLAGS[bare]);
    const hint = didYouMean(`--${bare}`, flags);
    return new CommandUsageError(`unknown option ${flag}${hint || ' (--help lists the options)'}`);
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /Option '(-[^' <]+)/.exec(err.message)?.[1] ?? 'an option';
    if (/does not take an argument/.test(err.message)) return new CommandUsageError(`${flag} takes no value`);
    return new CommandUsageError(
      `${flag} needs a value (use ${flag}=VALUE for a value that starts with '-')`,
    );
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const word = /Unexpected argument '([^']*)'/.exec(err.message)?.[1] ?? '?';
    return new CommandUsageError(`unexpected argument ${JSON.stringify(word)}`);
  }
  return new CommandUsageError(err.message.split('. ')[0]!);
}

/** "samsa topics" from "Usage: samsa topics (--create | …)". */
function commandName(usage: string): string {
  return /^Usage: (samsa(?: [a-z][a-z-]*)*)/.exec(usage)?.[1] ?? 'samsa';
}

/** An error whose message is the whole story (no class name, no stack). */
export class CommandError extends Error {
  override name = 'CommandError';
}

/** Runs a command body: a usage error is one line and exit status 1, as is any failure. */
export async function runCommand(io: CommandIO, usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    const e = err as Error;
    if (err instanceof CommandUsageError) {
      io.stderr.write(`${commandName(usage)}: ${e.message}\n`);
      return 1;
    }
    const named = e.name === 'Error' || e.name === 'CommandError' ? '' : `${e.name}: `;
    io.stderr.write(`samsa: ${named}${e.message}\n`);
    return 1;
  }
}

/** `--help` prints the usage and gives null (exit 0); otherwise `--topic` is required. */
export function topicUnlessHelp(
  io: CommandIO,
  usage: string,
  values: { help?: boolean | undefined; topic?: string | undefined },
): string | null {
  if (values.help) {
    io.stdout.write(usage);
    return null;
  }
  if (values.topic === undefined) throw new CommandUsageError('--topic is required');
  return values.topic;
}
