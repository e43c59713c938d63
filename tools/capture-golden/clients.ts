// The client runs whose requests are captured. What each run sends is fixed here and repeated
// (independently) in test/protocol/golden/*.test.ts, which asserts the decoded frames against it.

import { spawn } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';

const RUN_TIMEOUT_MS = 30_000;

export const KCAT_TOPIC = 'golden-librdkafka';
export const KAFKAJS_TOPIC = 'golden-kafkajs';

/** Values repeat a phrase so that every codec really shrinks the batch (librdkafka sends a batch
 * uncompressed when compression would not make it smaller). */
export function kcatValue(i: number): string {
  return `value-${i} ${'the quick brown fox jumps over the lazy dog '.repeat(8).trim()}`;
}

export const KCAT_CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type KcatCodec = (typeof KCAT_CODECS)[number];

function run(cmd: string, args: string[], stdin: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'], timeout: RUN_TIMEOUT_MS });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end(stdin);
  });
}

/** kcat 1.7.1 / librdkafka 2.0.2: three keyed records with two headers, one batch, partition 0. */
export async function runKcat(port: number, codec: KcatCodec): Promise<void> {
  const args = ['-P', '-b', `127.0.0.1:${port}`, '-t', KCAT_TOPIC, '-p', '0', '-K', ':'];
  args.push('-H', 'source=kcat', '-H', 'trace=golden', '-X', 'linger.ms=200');
  if (codec !== 'none') args.push('-z', codec);
  const lines = [1, 2, 3].map((i) => `key-${i}:${kcatValue(i)}`).join('\n');
  const { code, stderr } = await run('kcat', args, `${lines}\n`);
  if (code !== 0) throw new Error(`kcat (${codec}) exited with ${code}: ${stderr}`);
}

/** kafkajs 2.2.4: a keyed record with headers, a null-key record and a tombstone. */
export async function runKafkajs(port: number): Promise<void> {
  const kafka = new Kafka({
    clientId: 'golden-kafkajs',
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  try {
    await producer.send({
      topic: KAFKAJS_TOPIC,
      messages: [
        { key: 'k1', value: 'v1', partition: 0, headers: { h1: 'x', h2: Buffer.from([0, 1, 2]) } },
        { key: null, value: 'v2', partition: 0 },
        { key: 'k3', value: null, partition: 0 },
      ],
    });
  } finally {
    await producer.disconnect();
  }
}

/** kafka-python 2.0.2: constructing KafkaClient runs check_version (ApiVersions v0 + Metadata v0). */
export async function runKafkaPython(port: number): Promise<void> {
  const script = [
    'from kafka import KafkaClient',
    `c = KafkaClient(bootstrap_servers='127.0.0.1:${port}')`,
    'c.close()',
  ].join('\n');
  const { code, stderr } = await run('/usr/bin/python3', ['-c', script], '');
  if (code !== 0) throw new Error(`kafka-python exited with ${code}: ${stderr}`);
}
