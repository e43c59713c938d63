// Producer id, epoch and sequence arithmetic for the idempotent producer.
//
// Sequences are per partition, assigned to a batch when it is first drained and kept across
// retries, so the broker can drop a resend it already appended (DUPLICATE_SEQUENCE_NUMBER or
// the original offset). After an unrecoverable sequence error (OUT_OF_ORDER_SEQUENCE_NUMBER on
// the first unacknowledged batch, UNKNOWN_PRODUCER_ID, a sequence gap left by an expired batch)
// the epoch is bumped (KIP-360: InitProducerId v3+ with the current id/epoch; older brokers hand
// out a new id); that partition restarts at sequence 0, the others once the batches they already
// numbered under the old epoch are done (`sender.ts`).
import { ErrorCode } from '../../protocol/errors.js';
import type {
  InitProducerIdRequest,
  InitProducerIdResponse,
} from '../../protocol/messages/generated/init-producer-id.js';
import { FatalProducerError, KafkaResponseError } from '../errors.js';

export const SEQUENCE_MAX = 0x7fffffff;

/** Java's DefaultRecordBatch.incrementSequence: sequences wrap from INT32_MAX to 0. */
export function incrementSequence(seq: number, by: number): number {
  return seq > SEQUENCE_MAX - by ? by - (SEQUENCE_MAX - seq) - 1 : seq + by;
}

/** Whether sequence `a` comes after `b`, allowing for wrap-around (half the range ahead). */
export function sequenceAfter(a: number, b: number): boolean {
  const d = a - b;
  return d > 0 ? d < 0x40000000 : d < -0x40000000;
}

export type InitProducerIdCall = (req: InitProducerIdRequest) => Promise<InitProducerIdResponse>;

/** Errors after which InitProducerId is simply retried. */
const RETRY_INIT = new Set<number>([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.CONCURRENT_TRANSACTIONS,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.NOT_ENOUGH_REPLICAS,
]);

export const FENCING_ERRORS = new Set<number>([
  ErrorCode.PRODUCER_FENCED,
  ErrorCode.INVALID_PRODUCER_EPOCH,
  ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
]);

export class ProducerIdentity {
  producerId = -1n;
  epoch = -1;
  #call: InitProducerIdCall;
  #transactionalId: string | null;
  #transactionTimeoutMs: number;
  #retryBackoffMs: number;
  #deadlineMs: number;

  constructor(
    call: InitProducerIdCall,
    transactionalId: string | null,
    transactionTimeoutMs: number,
    retryBackoffMs: number,
    deadlineMs: number,
  ) {
    this.#call = call;
    this.#transactionalId = transactionalId;
    this.#transactionTimeoutMs = transactionTimeoutMs;
    this.#retryBackoffMs = retryBackoffMs;
    this.#deadlineMs = deadlineMs;
  }

  get valid(): boolean {
    return this.producerId >= 0n;
  }

  /** Obtains a producer id (or bumps the epoch of the current one when `bump` is set). */
  async init(bump: boolean): Promise<void> {
    const deadline = Date.now() + this.#deadlineMs;
    let lastErr: unknown;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      let res: InitProducerIdResponse;
      try {
        res = await this.#call({
          transactionalId: this.#transactionalId,
          transactionTimeoutMs: this.#transactionTimeoutMs,
          producerId: bump ? this.producerId : -1n,
          producerEpoch: bump ? this.epoch : -1,
        });
      } catch (err) {
        if (err instanceof FatalProducerError || !(err as { retriable?: boolean }).retriable) throw err;
        lastErr = err;
        await sleep(this.#retryBackoffMs * Math.min(2 ** attempt, 10));
        continue;
      }
      if (res.errorCode === 0) {
        this.producerId = res.producerId;
        this.epoch = res.producerEpoch;
        return;
      }
      lastErr = new KafkaResponseError(res.errorCode, 'InitProducerId');
      if (FENCING_ERRORS.has(res.errorCode)) {
        throw new FatalProducerError(
          (lastErr as KafkaResponseError).code,
          (lastErr as Error).message,
          lastErr,
        );
      }
      if (!RETRY_INIT.has(res.errorCode)) throw lastErr;
      await sleep(this.#retryBackoffMs * Math.min(2 ** attempt, 10));
    }
    throw lastErr ?? new KafkaResponseError(ErrorCode.REQUEST_TIMED_OUT, 'InitProducerId');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
