// A fake of the controller-to-broker network: every controller gets a RecordingChannel, all of
// which write to one log, so tests can see who sent what to whom with which epoch. The fake
// brokers answer at once (a microtask) with success, and keep what a real broker checks first:
// a request carrying an older controller epoch than one already seen is refused
// (STALE_CONTROLLER_EPOCH) and counted. Requests to a broker without an open queue fail, as the
// real channel's do; a broker can be made unresponsive to keep requests in flight.

import type { ControllerChannel } from '../../../../../src/broker/metadata/controller/controller-channel.js';
import type { BrokerInfo } from '../../../../../src/broker/metadata/store/records.js';
import type {
  LeaderAndIsrRequest,
  LeaderAndIsrResponse,
} from '../../../../../src/protocol/messages/generated/leader-and-isr.js';
import type {
  StopReplicaRequest,
  StopReplicaResponse,
} from '../../../../../src/protocol/messages/generated/stop-replica.js';
import type {
  UpdateMetadataRequest,
  UpdateMetadataResponse,
} from '../../../../../src/protocol/messages/generated/update-metadata.js';

const STALE_CONTROLLER_EPOCH = 11;

export type Recorded =
  | {
      readonly kind: 'LeaderAndIsr';
      readonly from: number;
      readonly to: number;
      readonly request: LeaderAndIsrRequest;
    }
  | {
      readonly kind: 'UpdateMetadata';
      readonly from: number;
      readonly to: number;
      readonly request: UpdateMetadataRequest;
    }
  | {
      readonly kind: 'StopReplica';
      readonly from: number;
      readonly to: number;
      readonly request: StopReplicaRequest;
    };

export class RecordingNetwork {
  readonly log: Recorded[] = [];
  /** Requests refused by a fake broker because a newer controller epoch was seen before. */
  readonly staleRefused: Recorded[] = [];
  /** Per broker id: the highest controller epoch it accepted. */
  readonly #epochs = new Map<number, number>();
  /** Brokers that do not answer (their requests stay in flight until the queue is dropped). */
  readonly unresponsive = new Set<number>();
  /** Per-partition error for StopReplica answers (default 0). */
  stopReplicaError: (to: number, topic: string, partition: number) => number = () => 0;

  channel(from: number): RecordingChannel {
    return new RecordingChannel(from, this);
  }

  clear(): void {
    this.log.length = 0;
  }

  sent<K extends Recorded['kind']>(kind: K, to?: number, from?: number): Extract<Recorded, { kind: K }>[] {
    return this.log.filter(
      (r): r is Extract<Recorded, { kind: K }> =>
        r.kind === kind && (to === undefined || r.to === to) && (from === undefined || r.from === from),
    );
  }

  /** Applies a broker's epoch check; true when accepted. */
  accept(r: Recorded): boolean {
    const epoch = r.request.controllerEpoch;
    const seen = this.#epochs.get(r.to) ?? 0;
    if (epoch < seen) {
      this.staleRefused.push(r);
      return false;
    }
    this.#epochs.set(r.to, epoch);
    return true;
  }
}

interface InFlight {
  reject(e: Error): void;
}

export class RecordingChannel implements ControllerChannel {
  readonly brokers = new Map<number, BrokerInfo>();
  readonly #inFlight = new Map<number, Set<InFlight>>();
  closed = false;

  constructor(
    readonly from: number,
    private readonly network: RecordingNetwork,
  ) {}

  addBroker(broker: BrokerInfo): void {
    this.brokers.set(broker.nodeId, broker);
  }

  removeBroker(nodeId: number): void {
    this.brokers.delete(nodeId);
    const pending = this.#inFlight.get(nodeId);
    this.#inFlight.delete(nodeId);
    for (const p of pending ?? []) p.reject(new Error(`queue of broker ${nodeId} dropped`));
  }

  leaderAndIsr(nodeId: number, request: LeaderAndIsrRequest): Promise<LeaderAndIsrResponse> {
    return this.#send({ kind: 'LeaderAndIsr', from: this.from, to: nodeId, request }, (ok) => ({
      errorCode: ok ? 0 : STALE_CONTROLLER_EPOCH,
      partitionErrors: [],
      topics: request.topicStates.map((t) => ({
        topicId: t.topicId,
        partitionErrors: t.partitionStates.map((p) => ({
          topicName: t.topicName,
          partitionIndex: p.partitionIndex,
          errorCode: 0,
        })),
      })),
    }));
  }

  updateMetadata(nodeId: number, request: UpdateMetadataRequest): Promise<UpdateMetadataResponse> {
    return this.#send({ kind: 'UpdateMetadata', from: this.from, to: nodeId, request }, (ok) => ({
      errorCode: ok ? 0 : STALE_CONTROLLER_EPOCH,
    }));
  }

  stopReplica(nodeId: number, request: StopReplicaRequest): Promise<StopReplicaResponse> {
    return this.#send({ kind: 'StopReplica', from: this.from, to: nodeId, request }, (ok) => ({
      errorCode: ok ? 0 : STALE_CONTROLLER_EPOCH,
      partitionErrors: request.topicStates.flatMap((t) =>
        t.partitionStates.map((p) => ({
          topicName: t.topicName,
          partitionIndex: p.partitionIndex,
          errorCode: this.network.stopReplicaError(nodeId, t.topicName, p.partitionIndex),
        })),
      ),
    }));
  }

  close(): void {
    this.closed = true;
    for (const id of [...this.brokers.keys()]) this.removeBroker(id);
  }

  #send<T>(r: Recorded, answer: (accepted: boolean) => T): Promise<T> {
    if (this.closed || !this.brokers.has(r.to))
      return Promise.reject(new Error(`no queue for broker ${r.to}`));
    this.network.log.push(r);
    if (this.network.unresponsive.has(r.to)) {
      return new Promise<T>((_resolve, reject) => {
        let set = this.#inFlight.get(r.to);
        if (set === undefined) {
          set = new Set();
          this.#inFlight.set(r.to, set);
        }
        set.add({ reject });
      });
    }
    return Promise.resolve().then(() => answer(this.network.accept(r)));
  }
}
