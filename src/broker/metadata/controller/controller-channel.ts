// How the controller talks to brokers: Kafka's three controller-to-broker requests, in order per
// broker (one in flight each, as Kafka's ControllerChannelManager), over the wire through
// `src/net` BrokerLink for other brokers and by a direct call for the controller's own broker
// (same receiver code as the wire handlers, no socket). The controller fills in controllerId,
// controllerEpoch and the target's brokerEpoch; the receiving broker rejects a stale controller
// epoch (STALE_CONTROLLER_EPOCH) or broker epoch (STALE_BROKER_EPOCH).

import type {
  LeaderAndIsrRequest,
  LeaderAndIsrResponse,
} from '../../../protocol/messages/generated/leader-and-isr.js';
import type {
  StopReplicaRequest,
  StopReplicaResponse,
} from '../../../protocol/messages/generated/stop-replica.js';
import type {
  UpdateMetadataRequest,
  UpdateMetadataResponse,
} from '../../../protocol/messages/generated/update-metadata.js';
import type { BrokerInfo } from '../store/records.js';

export interface ControllerChannel {
  /** Opens (or re-targets, when the endpoint or epoch changed) the queue of a live broker. */
  addBroker(broker: BrokerInfo): void;
  /** Drops a broker's queue: requests not yet answered fail with a retriable error. */
  removeBroker(nodeId: number): void;
  leaderAndIsr(nodeId: number, request: LeaderAndIsrRequest): Promise<LeaderAndIsrResponse>;
  updateMetadata(nodeId: number, request: UpdateMetadataRequest): Promise<UpdateMetadataResponse>;
  stopReplica(nodeId: number, request: StopReplicaRequest): Promise<StopReplicaResponse>;
  /** Fails everything queued and closes every connection. */
  close(): void;
}

/**
 * The receiving side, one per broker: what the API handlers 04 (LeaderAndIsr), 05 (StopReplica)
 * and 06 (UpdateMetadata) call, and what the channel calls directly for the controller's own
 * broker. Implementations validate the controller and broker epochs first.
 */
export interface ControllerRequestReceiver {
  leaderAndIsr(request: LeaderAndIsrRequest): Promise<LeaderAndIsrResponse>;
  updateMetadata(request: UpdateMetadataRequest): Promise<UpdateMetadataResponse>;
  stopReplica(request: StopReplicaRequest): Promise<StopReplicaResponse>;
}
