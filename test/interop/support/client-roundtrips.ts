// Round trips through a broker by external clients, checked whole: kcat produces lines and reads
// the topic back to its end (every line, and only those, in any order: the topic may have
// several partitions); confluent-kafka-python produces N keyed records and reads them back
// (`test/interop/python/confluent_roundtrip.py`).

import assert from 'node:assert/strict';
import { repoFile } from '../../support/repo.js';
import { exec } from './exec.js';

export async function kcatRoundTrip(
  bootstrap: string,
  topic: string,
  lines: readonly string[],
): Promise<void> {
  const p = await exec('kcat', ['-b', bootstrap, '-P', '-t', topic], {
    input: `${lines.join('\n')}\n`,
    timeoutMs: 60_000,
  });
  assert.equal(p.code, 0, p.stderr);
  const c = await exec('kcat', ['-b', bootstrap, '-C', '-t', topic, '-e', '-q', '-f', '%s\n'], {
    timeoutMs: 60_000,
  });
  assert.equal(c.code, 0, c.stderr);
  assert.deepEqual(c.stdout.toString().trim().split('\n').sort(), [...lines].sort());
}

export async function confluentRoundTrip(
  bootstrap: string,
  topic: string,
  records: number,
  codec: string,
): Promise<void> {
  const py = await exec(
    '/usr/bin/python3',
    [repoFile('test/interop/python/confluent_roundtrip.py'), bootstrap, topic, String(records), codec],
    { timeoutMs: 100_000 },
  );
  assert.equal(py.code, 0, py.stderr);
  assert.deepEqual(JSON.parse(py.stdout.toString()), {
    unflushed: 0,
    delivery_errors: [],
    consumed: records,
    distinct_ok: true,
    bad: [],
  });
}
