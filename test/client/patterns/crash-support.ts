// Shared by the pattern tests that SIGKILL a process at random points and restart it (fan-out,
// ordered parallel consumption, replay): reproducible kill points (SAMSA_KILL_SEED=N replays the
// run a failure names), a repository module run as a child, the kill itself, a producer that
// keeps appending while the children come and go, a child's log of what it processed, and a
// group's committed offsets once the last commit of a killed member has landed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { TestBroker } from '../../../src/testkit/index.js';
import { Proc } from '../../broker/txn/interop-support.js';
import { nodeArgs, REPO } from '../../support/repo.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { rng } from '../consumer/assignors/helpers.js';
import { committedOffsets, sleep, until } from './support.js';

/** Pseudo-random kill points from one seed; the seed goes into the test's diagnostics. */
export class KillPoints {
  readonly seed: number;
  readonly #next: () => number;

  constructor() {
    const fromEnv = process.env.SAMSA_KILL_SEED;
    this.seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Math.floor(Math.random() * 1e9);
    assert.ok(Number.isSafeInteger(this.seed), `SAMSA_KILL_SEED must be an integer, got ${fromEnv}`);
    this.#next = rng(this.seed);
  }

  /** A whole number in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }
}

/** Runs a TypeScript module of the repository in a child process (stdout lines collected). */
export function spawnModule(tsPath: string, args: readonly string[]): Proc {
  return new Proc(
    spawn(process.execPath, nodeArgs(tsPath, ...args), { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

/**
 * Waits until `reached()` (the child got mid-way: `what`), then `extraMs` more, and SIGKILLs it.
 * Fails if the child exits by itself first, or on the (scaled) timeout.
 */
export async function killWhen(
  p: Proc,
  reached: () => boolean,
  what: string,
  extraMs: number,
  timeoutMs = 120_000,
): Promise<void> {
  try {
    await until(() => reached() || !p.running, timeoutMs, what);
    assert.ok(p.running, `the child exited before ${what}: ${p.stderr}`);
    await sleep(extraMs);
    assert.ok(p.running, `the child exited before its kill point (${what} + ${extraMs} ms): ${p.stderr}`);
  } finally {
    await p.kill('SIGKILL');
  }
  assert.equal(p.child.signalCode, 'SIGKILL', 'the child died of the SIGKILL');
}

/**
 * Appends to a topic in chunks through `produce(from, count)` until stop(), which resolves with
 * how many were appended in all (counting from `start`). A failed append fails stop().
 */
export function keepProducing(
  produce: (from: number, count: number) => Promise<void>,
  start: number,
  chunk: number,
  pauseMs: number,
): { readonly produced: () => number; stop(): Promise<number> } {
  let next = start;
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      await produce(next, chunk);
      next += chunk;
      await sleep(pauseMs);
    }
  })();
  return {
    produced: () => next,
    async stop() {
      stopping = true;
      await loop;
      return next;
    },
  };
}

/** The lines a child appended to its log, each split on spaces; none if it never wrote one. */
export function logLines(file: string): string[][] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split(' '));
}

/**
 * A group's committed offsets after a member was killed: an OffsetCommit it sent just before
 * the kill may still be applied, so read until two reads 300 ms apart agree.
 */
export async function settledCommits(b: TestBroker, group: string): Promise<Map<number, bigint>> {
  const text = (m: Map<number, bigint>) =>
    [...m]
      .map(([p, o]) => `${p}:${o}`)
      .sort()
      .join(',');
  const ms = scaled(60_000);
  const deadline = Date.now() + ms;
  let committed = await committedOffsets(b, group);
  for (;;) {
    if (Date.now() > deadline) throw new TestTimeoutError(`the commits of group ${group} to settle`, ms);
    await sleep(300);
    const again = await committedOffsets(b, group);
    if (text(again) === text(committed)) return again;
    committed = again;
  }
}
