// `samsa transactions`' tables as kafka-transactions.sh prints them: a header row, then one row
// per item; each cell is padded to its column's widest value and followed by a tab. Absent
// values read "None" where Kafka prints that (no open transaction), -1 where Kafka prints -1.
import type {
  PartitionProducers,
  TransactionDescription,
  TransactionListing,
} from '../../client/admin/transactions.js';

export interface HangingTransaction {
  topic: string;
  partition: number;
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
  startOffset: bigint;
  lastTimestamp: bigint;
  durationMinutes: number;
  /** The id the coordinator knows the producer by; null when no coordinator knows it. */
  transactionalId: string | null;
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => `${r.map((c, i) => `${c.padEnd(widths[i]!)}\t`).join('')}\n`;
  return [header, ...rows].map(line).join('');
}

export function listText(listings: readonly TransactionListing[]): string {
  return table(
    ['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState'],
    listings.map((l) => [l.transactionalId, String(l.coordinatorId), String(l.producerId), l.state]),
  );
}

/** The description plus how long its open transaction has run (null when none is open). */
export function withDuration(
  d: TransactionDescription,
  nowMs: number,
): TransactionDescription & { transactionDurationMs: number | null } {
  const start = d.transactionStartTimeMs;
  return { ...d, transactionDurationMs: start === null ? null : nowMs - Number(start) };
}

export function describeText(d: TransactionDescription, nowMs: number): string {
  const { transactionDurationMs } = withDuration(d, nowMs);
  return table(
    [
      'CoordinatorId',
      'TransactionalId',
      'ProducerId',
      'ProducerEpoch',
      'TransactionState',
      'TransactionTimeoutMs',
      'CurrentTransactionStartTimeMs',
      'TransactionDurationMs',
      'TopicPartitions',
    ],
    [
      [
        String(d.coordinatorId),
        d.transactionalId,
        String(d.producerId),
        String(d.producerEpoch),
        d.state,
        String(d.transactionTimeoutMs),
        d.transactionStartTimeMs === null ? 'None' : String(d.transactionStartTimeMs),
        transactionDurationMs === null ? 'None' : String(transactionDurationMs),
        d.partitions.map((p) => `${p.topic}-${p.partition}`).join(','),
      ],
    ],
  );
}

export function producersText(p: PartitionProducers): string {
  return table(
    [
      'ProducerId',
      'ProducerEpoch',
      'LatestCoordinatorEpoch',
      'LastSequence',
      'LastTimestamp',
      'CurrentTransactionStartOffset',
    ],
    p.activeProducers.map((s) => [
      String(s.producerId),
      String(s.producerEpoch),
      String(s.coordinatorEpoch ?? -1),
      String(s.lastSequence),
      String(s.lastTimestamp),
      s.currentTransactionStartOffset === null ? 'None' : String(s.currentTransactionStartOffset),
    ]),
  );
}

export function hangingText(hanging: readonly HangingTransaction[]): string {
  return table(
    [
      'Topic',
      'Partition',
      'ProducerId',
      'ProducerEpoch',
      'CoordinatorEpoch',
      'StartOffset',
      'LastTimestamp',
      'Duration(min)',
    ],
    hanging.map((h) => [
      h.topic,
      String(h.partition),
      String(h.producerId),
      String(h.producerEpoch),
      String(h.coordinatorEpoch),
      String(h.startOffset),
      String(h.lastTimestamp),
      String(h.durationMinutes),
    ]),
  );
}
