// The testkit's broker processes (src/testkit/broker-standby.ts): a standby loads the broker,
// then runs the command line it reads from stdin exactly as the `samsa` command would, and one
// that never gets a command line exits once stdin closes (the test process that spawned it is
// gone). The restarts of every cluster test go through it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { nodeArgs } from '../support/repo.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

async function standby(
  input: string | null,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, nodeArgs('src/testkit/broker-standby.ts'), {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input ?? undefined);
  const ms = scaled(60_000);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    new Promise<number | null>((r) => child.once('close', (c) => r(c))),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new TestTimeoutError('the standby to exit', ms, stderr));
      }, ms);
    }),
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

test('a standby runs the command line it is given as the samsa command does', async () => {
  const version = await standby(`${JSON.stringify(['--version'])}\n`);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
  const bad = await standby(`${JSON.stringify(['start', '--no-such-flag'])}\n`);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^samsa: .*no-such-flag/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, 'one line, no stack');
});

test('a standby without a command line exits when its stdin closes, printing nothing', async () => {
  const r = await standby(null);
  assert.deepEqual(r, { code: 0, stdout: '', stderr: '' });
});
