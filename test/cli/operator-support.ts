// Shared by the tests of the operator commands (configs, cluster, records, log-dirs, acls): run
// the real `samsa` binary, and assert Kafka-tool failure habits — exit status 1 and exactly one
// line on stderr that says what to do.
import assert from 'node:assert/strict';
import { type CliResult, captureIO, runCli } from './support.js';

/** `samsa ARGS` against `bootstrap`; fails the test on exit status ≠ 0. */
export async function ok(bootstrap: string, ...args: string[]): Promise<CliResult> {
  const r = await runCli([...args, '--bootstrap-server', bootstrap]);
  assert.equal(r.code, 0, `samsa ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** `samsa ARGS` exits 1 with one stderr line matching `pattern`. */
export async function fails(bootstrap: string, pattern: RegExp, ...args: string[]): Promise<CliResult> {
  const r = await runCli([...args, '--bootstrap-server', bootstrap]);
  assert.equal(r.code, 1, `samsa ${args.join(' ')} should fail\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.match(r.stderr, /^[^\n]+\n$/, `one line on stderr: ${r.stderr}`);
  assert.match(r.stderr, pattern);
  return r;
}

type RunFn = (argv: readonly string[], io: ReturnType<typeof captureIO>['io']) => Promise<number>;

/**
 * Like `fails`, in-process through the command's run function (same code, no process start):
 * for the long lists of mistakes, which would otherwise start one Node process each. `args` as
 * on the command line, the command's name first.
 */
export async function failsIn(
  run: RunFn,
  bootstrap: string,
  pattern: RegExp,
  ...args: string[]
): Promise<string> {
  const io = captureIO();
  const code = await run([...args.slice(1), '--bootstrap-server', bootstrap], io.io);
  assert.equal(code, 1, `${args.join(' ')} should fail\nstdout: ${io.stdout()}\nstderr: ${io.stderr()}`);
  assert.match(io.stderr(), /^[^\n]+\n$/, `one line on stderr: ${io.stderr()}`);
  assert.match(io.stderr(), pattern);
  return io.stdout() + io.stderr();
}

/** Like `ok`, in-process (see failsIn); `args` with the command's name first. */
export async function okIn(
  run: RunFn,
  bootstrap: string,
  ...args: string[]
): Promise<{ stdout: string; stderr: string }> {
  const io = captureIO();
  const code = await run([...args.slice(1), '--bootstrap-server', bootstrap], io.io);
  assert.equal(code, 0, `${args.join(' ')}\nstdout: ${io.stdout()}\nstderr: ${io.stderr()}`);
  return { stdout: io.stdout(), stderr: io.stderr() };
}
