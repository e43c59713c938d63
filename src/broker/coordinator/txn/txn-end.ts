// EndTxn on the coordinator (Kafka's TransactionCoordinator.endTransaction and
// TransactionMetadata.prepareAbortOrCommit/prepareComplete), one table per transaction protocol,
// picked by the request's version (Kafka's transactionVersionForEndTxn):
//
// - v1 (EndTxn v0-4): the transaction ends at its epoch; the request must carry exactly that
//   epoch (clients never bump it themselves). Only an Ongoing transaction is ended; a completed
//   one with the same result answers NONE (a retry whose answer was lost).
// - v2 (EndTxn v5, KIP-890 part 2): the Prepare* state carries epoch + 1, so the markers are
//   written with it and from then on every partition of the transaction refuses what the
//   producer still sends at the old epoch (a late retry can no longer land in the next
//   transaction); the producer continues with the id and epoch the answer carries. When the
//   epoch is exhausted (≥ 32766) the markers use 32767 and the producer continues with a new
//   producer id at epoch 0 (`nextProducerId`, taken over when the transaction completes). The
//   current epoch is the one of the *next* transaction, so a retried EndTxn shows up with epoch
//   − 1 (or with the old id at the exhausted epoch after a rotation). An abort with no
//   transaction open (Empty, Complete*) is accepted as well, with an epoch bump and no marker:
//   a producer that cannot tell what became of its writes fences them that way (Kafka 4.1+).
//
import { ErrorCode } from '../../../protocol/errors.js';
import {
  isEpochExhausted,
  isTransactionV2,
  MAX_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type TxnMetadata,
} from './txn-metadata.js';

export interface EndTxnRequest {
  producerId: bigint;
  producerEpoch: number;
  commit: boolean;
  /** The client's transaction protocol: 2 for EndTxn v5, else 0. */
  clientTransactionVersion: number;
  /** False while `transaction.version` < 2: only a transaction begun under v2 may end under v2. */
  v2Enabled: boolean;
}

export interface EndTxnAnswer {
  errorCode: number;
  /** What the producer continues with (EndTxn v5); -1/-1 on an error. */
  producerId: bigint;
  producerEpoch: number;
}

export type EndTxnDecision =
  | { kind: 'answer'; answer: EndTxnAnswer }
  | { kind: 'prepare'; next: TxnMetadata }
  /** The epoch runs out with this transaction: allocate a producer id and decide again. */
  | { kind: 'needsProducerId' };

const fail = (errorCode: number): EndTxnDecision => ({
  kind: 'answer',
  answer: { errorCode, producerId: NO_PRODUCER_ID, producerEpoch: -1 },
});

/** The id and epoch a transaction in `m` hands the producer once it is complete. */
export function identityAfter(m: TxnMetadata): { producerId: bigint; producerEpoch: number } {
  const next = m.nextProducerId ?? NO_PRODUCER_ID;
  return next >= 0n
    ? { producerId: next, producerEpoch: 0 }
    : { producerId: m.producerId, producerEpoch: m.producerEpoch };
}

export function decideEndTxn(
  m: TxnMetadata | undefined,
  req: EndTxnRequest,
  newProducerId: bigint | null,
  now: number,
): EndTxnDecision {
  if (m === undefined) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  if (req.clientTransactionVersion < 2) return decideV1(m, req, now);
  if (!req.v2Enabled && !isTransactionV2(m)) return fail(ErrorCode.UNSUPPORTED_VERSION);
  // The answer to this request's earlier attempt bumped the epoch (or rotated the id).
  const retryOfBump = m.producerId === req.producerId && m.producerEpoch === req.producerEpoch + 1;
  const retryOfRotation =
    m.previousProducerId === req.producerId &&
    req.producerEpoch === MAX_PRODUCER_EPOCH &&
    m.producerEpoch === 0;
  if (m.producerId !== req.producerId && !retryOfRotation) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  const retry = retryOfBump || retryOfRotation;
  const current = req.producerEpoch === m.producerEpoch;
  const prepared = m.state === 'PrepareCommit' || m.state === 'PrepareAbort';
  const complete = m.state === 'CompleteCommit' || m.state === 'CompleteAbort';
  if (!(prepared ? retryOfBump : complete ? retry || current : current))
    return fail(ErrorCode.PRODUCER_FENCED);
  switch (m.state) {
    case 'Ongoing':
      return prepareV2(m, req, newProducerId, now, false);
    case 'Empty':
      return req.commit ? fail(ErrorCode.INVALID_TXN_STATE) : prepareV2(m, req, newProducerId, now, true);
    case 'CompleteCommit':
    case 'CompleteAbort':
      if (retry)
        return (m.state === 'CompleteCommit') === req.commit
          ? unchanged(m)
          : fail(ErrorCode.INVALID_TXN_STATE);
      return req.commit ? fail(ErrorCode.INVALID_TXN_STATE) : prepareV2(m, req, newProducerId, now, true);
    case 'PrepareCommit':
      return fail(req.commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case 'PrepareAbort':
      return fail(req.commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
    default:
      return fail(ErrorCode.INVALID_TXN_STATE);
  }
}

/** NONE with the identity the producer holds: the transaction already ended this way. */
function unchanged(m: TxnMetadata): EndTxnDecision {
  return {
    kind: 'answer',
    answer: { errorCode: ErrorCode.NONE, producerId: m.producerId, producerEpoch: m.producerEpoch },
  };
}

function decideV1(m: TxnMetadata, req: EndTxnRequest, now: number): EndTxnDecision {
  if (m.producerId !== req.producerId) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  if (req.producerEpoch !== m.producerEpoch) return fail(ErrorCode.PRODUCER_FENCED);
  switch (m.state) {
    case 'Ongoing': {
      const { clientTransactionVersion: _v, nextProducerId: _n, ...v1 } = m;
      return {
        kind: 'prepare',
        next: { ...v1, state: req.commit ? 'PrepareCommit' : 'PrepareAbort', lastUpdateTimestamp: now },
      };
    }
    case 'CompleteCommit':
      return req.commit ? unchanged(m) : fail(ErrorCode.INVALID_TXN_STATE);
    case 'CompleteAbort':
      return req.commit ? fail(ErrorCode.INVALID_TXN_STATE) : unchanged(m);
    case 'PrepareCommit':
      return fail(req.commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case 'PrepareAbort':
      return fail(req.commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
    case 'Empty':
      return fail(ErrorCode.INVALID_TXN_STATE);
    default:
      return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
  }
}

/**
 * Prepare* under protocol v2: epoch + 1 (the markers' epoch), or the last epoch and a new id
 * when it runs out. `noPartitionAdded`: an abort with nothing open, which has no partition to
 * mark and starts now.
 */
function prepareV2(
  m: TxnMetadata,
  req: EndTxnRequest,
  newProducerId: bigint | null,
  now: number,
  noPartitionAdded: boolean,
): EndTxnDecision {
  const exhausted = isEpochExhausted(m.producerEpoch);
  if (exhausted && newProducerId === null) return { kind: 'needsProducerId' };
  const next: TxnMetadata = {
    ...m,
    state: req.commit ? 'PrepareCommit' : 'PrepareAbort',
    producerEpoch: m.producerEpoch + 1,
    lastProducerEpoch: m.producerEpoch,
    lastUpdateTimestamp: now,
    clientTransactionVersion: req.clientTransactionVersion,
  };
  if (noPartitionAdded) {
    next.partitions = [];
    next.startTimestamp = now;
  }
  if (exhausted) next.nextProducerId = newProducerId as bigint;
  else delete next.nextProducerId;
  return { kind: 'prepare', next };
}

/** Prepare* → Complete* once every marker is written (Kafka's prepareComplete). */
export function completed(m: TxnMetadata, now: number): TxnMetadata {
  const state = m.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort';
  if (!isTransactionV2(m)) return { ...m, state, partitions: [], lastUpdateTimestamp: now };
  const { nextProducerId: _n, ...rest } = m;
  const { producerId, producerEpoch } = identityAfter(m);
  return {
    ...rest,
    state,
    partitions: [],
    lastUpdateTimestamp: now,
    producerId,
    producerEpoch,
    previousProducerId: m.producerId,
    lastProducerEpoch: m.producerEpoch,
  };
}
