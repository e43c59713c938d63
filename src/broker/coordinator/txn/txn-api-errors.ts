// Version-dependent error codes of the transactional APIs. PRODUCER_FENCED (KIP-588) exists
// only from InitProducerId v4, AddPartitionsToTxn/AddOffsetsToTxn/EndTxn v2; older clients get
// INVALID_PRODUCER_EPOCH, which they treat as fencing too. TxnOffsetCommit never had it.
import { ErrorCode } from '../../../protocol/errors.js';

export function producerFencedFor(code: number, versionKnowsProducerFenced: boolean): number {
  return code === ErrorCode.PRODUCER_FENCED && !versionKnowsProducerFenced
    ? ErrorCode.INVALID_PRODUCER_EPOCH
    : code;
}
