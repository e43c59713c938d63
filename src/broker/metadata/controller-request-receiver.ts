// This broker's side of the controller's three requests (Kafka's KafkaApis + ReplicaManager
// handling of LeaderAndIsr, StopReplica and UpdateMetadata in ZooKeeper mode). The API handlers
// 04/05/06 call it for requests that came over the wire; the controller's channel calls it
// directly when the controller runs on this broker. Requests run one at a time.
//
// Fencing, before anything else: a broker epoch (KIP-380) older than this broker's current
// registration → STALE_BROKER_EPOCH (the request was meant for an earlier incarnation; -1 means
// "not sent" and passes, a newer one passes too: the controller may learn of a re-registration
// before this broker's own registration call returns). Then a controller epoch older than the
// highest seen → STALE_CONTROLLER_EPOCH for the whole request; the same epoch from another
// controller id, or a KRaft controller (KIP-866 flag), likewise. A newer epoch is accepted once
// `verifyController` (when given) confirms the sender is the elected controller, so a client
// cannot fence the real controller by inventing a large epoch.
//
// A failure that is not the request's fault (the store did not answer while topic configs were
// read, or while verifying the controller) rejects with `ReceiverUnavailableError` before
// anything changed: the wire handler closes the connection and the channel resends.

import { errorClass } from '../../net/errors.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type {
  LeaderAndIsrRequest,
  LeaderAndIsrResponse,
} from '../../protocol/messages/generated/leader-and-isr.js';
import type {
  StopReplicaRequest,
  StopReplicaResponse,
} from '../../protocol/messages/generated/stop-replica.js';
import type {
  UpdateMetadataRequest,
  UpdateMetadataResponse,
} from '../../protocol/messages/generated/update-metadata.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { ReplicaManager } from '../replica/replica-manager.js';
import type { PartitionError, TopicPartitionRef } from '../replica/transitions.js';
import type { ControllerRequestReceiver } from './controller/controller-channel.js';
import {
  leaderAndIsrErrorResponse,
  leaderAndIsrInputs,
  leaderAndIsrResponse,
  leaderAndIsrTopicIds,
  stopReplicaInputs,
} from './controller/request-forms.js';
import type { MetadataPublisher } from './publisher.js';
import { topicNameError } from './topic-names.js';

/** The receiver could not process a request for a transient reason; nothing was applied. Retriable. */
export class ReceiverUnavailableError extends errorClass(
  'ReceiverUnavailableError',
  'RECEIVER_UNAVAILABLE',
  true,
) {}

export interface ControllerRequestReceiverDeps {
  readonly nodeId: number;
  readonly replicas: Pick<ReplicaManager, 'becomeLeaderOrFollower' | 'stopReplicas'>;
  readonly publisher: Pick<MetadataPublisher, 'applyUpdateMetadata' | 'topicConfigs' | 'publishLeadership'>;
  /** This broker's current registration epoch (KIP-380); -1n while it is not registered. */
  brokerEpoch(): bigint;
  /**
   * Confirms that `controllerId` is the elected controller (e.g. reads `/controller`) when a
   * request brings a controller epoch newer than any seen. Rejecting = store unavailable.
   */
  verifyController?(controllerId: number, controllerEpoch: number): Promise<boolean>;
  readonly logger?: Logger;
}

interface ControlRequestHeader {
  readonly controllerId: number;
  readonly isKRaftController: boolean;
  readonly controllerEpoch: number;
  readonly brokerEpoch: bigint;
}

export class BrokerControllerRequestReceiver implements ControllerRequestReceiver {
  readonly #deps: ControllerRequestReceiverDeps;
  readonly #logger: Logger;
  #controllerEpoch = -1;
  #controllerId = -1;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(deps: ControllerRequestReceiverDeps) {
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
  }

  /** The highest controller epoch accepted so far (-1: none). */
  get controllerEpoch(): number {
    return this.#controllerEpoch;
  }

  /** The controller that sent the highest accepted epoch (-1: none). */
  get controllerId(): number {
    return this.#controllerId;
  }

  leaderAndIsr(req: LeaderAndIsrRequest): Promise<LeaderAndIsrResponse> {
    return this.#run(async () => {
      const fenced = await this.#fence(req, 'LeaderAndIsr');
      if (fenced !== ErrorCode.NONE) return leaderAndIsrErrorResponse(req, fenced);
      const inputs = leaderAndIsrInputs(req);
      const invalid = new Map<string, number>();
      const valid = inputs.filter((i) => {
        const code = partitionRefError(i);
        if (code !== ErrorCode.NONE) invalid.set(key(i), code);
        return code === ErrorCode.NONE;
      });
      let result: Awaited<ReturnType<ReplicaManager['becomeLeaderOrFollower']>>;
      try {
        result = await this.#deps.replicas.becomeLeaderOrFollower(valid, {
          topicConfigs: (topic) => this.#deps.publisher.topicConfigs(topic),
          liveLeaders: req.liveLeaders,
          brokerEpoch: req.brokerEpoch,
        });
      } catch (e) {
        throw transient('LeaderAndIsr', e);
      }
      this.#deps.publisher.publishLeadership(result.leadershipChanges);
      const errors = inRequestOrder(inputs, result.errors, invalid);
      return leaderAndIsrResponse(ErrorCode.NONE, errors, leaderAndIsrTopicIds(req));
    });
  }

  updateMetadata(req: UpdateMetadataRequest): Promise<UpdateMetadataResponse> {
    return this.#run(async () => {
      const fenced = await this.#fence(req, 'UpdateMetadata');
      if (fenced !== ErrorCode.NONE) return { errorCode: fenced };
      try {
        await this.#deps.publisher.applyUpdateMetadata(req);
      } catch (e) {
        if (e instanceof KafkaError && e.code === ErrorCode.INVALID_REQUEST) {
          this.#logger.log('warn', 'UpdateMetadata rejected', { error: e.message });
          return { errorCode: e.code };
        }
        throw transient('UpdateMetadata', e);
      }
      return { errorCode: ErrorCode.NONE };
    });
  }

  stopReplica(req: StopReplicaRequest): Promise<StopReplicaResponse> {
    return this.#run(async () => {
      const fenced = await this.#fence(req, 'StopReplica');
      // As Kafka: a fenced StopReplica answers the top-level error only.
      if (fenced !== ErrorCode.NONE) return { errorCode: fenced, partitionErrors: [] };
      const inputs = stopReplicaInputs(req);
      const invalid = new Map<string, number>();
      const valid = inputs.filter((i) => {
        const code = partitionRefError(i);
        if (code !== ErrorCode.NONE) invalid.set(key(i), code);
        return code === ErrorCode.NONE;
      });
      let result: Awaited<ReturnType<ReplicaManager['stopReplicas']>>;
      try {
        result = await this.#deps.replicas.stopReplicas(valid);
      } catch (e) {
        throw transient('StopReplica', e);
      }
      this.#deps.publisher.publishLeadership(result.leadershipChanges);
      return {
        errorCode: ErrorCode.NONE,
        partitionErrors: inRequestOrder(inputs, result.errors, invalid).map((e) => ({
          topicName: e.topic,
          partitionIndex: e.partition,
          errorCode: e.errorCode,
        })),
      };
    });
  }

  #run<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.#queue.then(fn);
    this.#queue = p.catch(() => {});
    return p;
  }

  /** The broker- and controller-epoch checks; accepts (and remembers) a newer controller. */
  async #fence(req: ControlRequestHeader, what: string): Promise<number> {
    const current = this.#deps.brokerEpoch();
    if (req.brokerEpoch !== -1n && req.brokerEpoch < current) {
      this.#logger.log('info', `${what} for an earlier incarnation of this broker ignored`, {
        brokerEpoch: String(req.brokerEpoch),
        current: String(current),
        controllerId: req.controllerId,
      });
      return ErrorCode.STALE_BROKER_EPOCH;
    }
    const stale = (reason: string): number => {
      this.#logger.log('warn', `${what} from a stale or unknown controller ignored: ${reason}`, {
        controllerId: req.controllerId,
        controllerEpoch: req.controllerEpoch,
        latestControllerId: this.#controllerId,
        latestControllerEpoch: this.#controllerEpoch,
      });
      return ErrorCode.STALE_CONTROLLER_EPOCH;
    };
    if (req.isKRaftController) return stale('KRaft controllers are not part of a ZooKeeper cluster');
    if (req.controllerId < 0 || req.controllerEpoch < 0) return stale('no controller id or epoch');
    if (req.controllerEpoch < this.#controllerEpoch) return stale('older controller epoch');
    if (req.controllerEpoch === this.#controllerEpoch) {
      return req.controllerId === this.#controllerId
        ? ErrorCode.NONE
        : stale('another controller with this epoch');
    }
    const verify = this.#deps.verifyController;
    if (verify !== undefined) {
      let ok: boolean;
      try {
        ok = await verify(req.controllerId, req.controllerEpoch);
      } catch (e) {
        throw transient(what, e);
      }
      // Another request may have raised the epoch while we waited.
      if (req.controllerEpoch < this.#controllerEpoch) return stale('older controller epoch');
      if (!ok) return stale('not the elected controller');
    }
    if (req.controllerEpoch > this.#controllerEpoch) {
      this.#controllerEpoch = req.controllerEpoch;
      this.#controllerId = req.controllerId;
    } else if (req.controllerId !== this.#controllerId) {
      return stale('another controller with this epoch');
    }
    return ErrorCode.NONE;
  }
}

function transient(what: string, e: unknown): Error {
  if (e instanceof ReceiverUnavailableError) return e;
  return new ReceiverUnavailableError(
    `${what} could not be processed now: ${e instanceof Error ? e.message : String(e)}`,
    e,
  );
}

const key = (p: TopicPartitionRef) => `${p.topic}\u0000${p.partition}`;
const ref = (p: TopicPartitionRef): TopicPartitionRef => ({ topic: p.topic, partition: p.partition });

/** One entry per partition (a request naming a partition twice gets one answer). */
function distinct<T extends TopicPartitionRef>(items: readonly T[]): T[] {
  const seen = new Map<string, T>();
  for (const i of items) if (!seen.has(key(i))) seen.set(key(i), i);
  return [...seen.values()];
}

/** Input that cannot name a partition: an illegal topic name or a negative index. */
function partitionRefError(p: TopicPartitionRef): number {
  if (topicNameError(p.topic) !== null) return ErrorCode.INVALID_TOPIC_EXCEPTION;
  if (!Number.isInteger(p.partition) || p.partition < 0) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  return ErrorCode.NONE;
}

/** The per-partition answers in the order the request named the partitions. */
function inRequestOrder(
  inputs: readonly TopicPartitionRef[],
  errors: readonly PartitionError[],
  invalid: ReadonlyMap<string, number>,
): PartitionError[] {
  const byKey = new Map(errors.map((e) => [key(e), e]));
  return distinct(inputs).map(
    (i) =>
      byKey.get(key(i)) ?? { ...ref(i), errorCode: invalid.get(key(i)) ?? ErrorCode.UNKNOWN_SERVER_ERROR },
  );
}
