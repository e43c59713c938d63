// The controller's channel to the brokers (Kafka's ControllerChannelManager): one queue per
// live broker with one request in flight, so every broker applies the controller's decisions in
// the order they were made. Other brokers are reached over the wire through a `BrokerLink`
// (their advertised endpoint, the controller broker's own client id); the controller's own
// broker through a direct call to its `ControllerRequestReceiver` (same objects, no socket),
// still in its queue's order.
//
// As Kafka's RequestSendThread, a send that fails for a transport reason (connection refused or
// lost, request timeout, a receiver that could not process it yet) is retried with backoff for
// as long as the broker stays in the channel; requests are resent whole, which the epochs make
// harmless (a decision already applied answers STALE_CONTROLLER_EPOCH per partition). A broker
// that is removed, or re-registered with a new epoch or endpoint, fails its pending requests
// with the retriable `BrokerRemovedError`: the controller decides what to resend to the new
// incarnation. Error responses are answers, not failures: they resolve.

import { backoffMs } from '../../../net/backoff.js';
import { BrokerLink, type BrokerLinkOptions } from '../../../net/broker-link.js';
import { ClientClosedError, errorClass } from '../../../net/errors.js';
import {
  type LeaderAndIsrRequest,
  type LeaderAndIsrResponse,
  leaderAndIsrApi,
} from '../../../protocol/messages/generated/leader-and-isr.js';
import {
  type StopReplicaRequest,
  type StopReplicaResponse,
  stopReplicaApi,
} from '../../../protocol/messages/generated/stop-replica.js';
import {
  type UpdateMetadataRequest,
  type UpdateMetadataResponse,
  updateMetadataApi,
} from '../../../protocol/messages/generated/update-metadata.js';
import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';
import type { BrokerInfo } from '../store/records.js';
import type { ControllerChannel, ControllerRequestReceiver } from './controller-channel.js';
import {
  completeLeaderAndIsrResponse,
  leaderAndIsrForVersion,
  stopReplicaForVersion,
  updateMetadataForVersion,
} from './request-forms.js';

/** The target broker left the channel (removed, re-registered, or never added). Retriable. */
export class BrokerRemovedError extends errorClass('BrokerRemovedError', 'BROKER_REMOVED', true) {}

export interface BrokerChannelOptions {
  /** The controller's own broker: reached by direct calls to `localReceiver`. */
  readonly localNodeId: number;
  readonly localReceiver: ControllerRequestReceiver;
  /** Client id of every inter-broker request, e.g. `samsa-controller-<id>`. */
  readonly clientId: string;
  /** Connection settings of the links (Kafka: controller.socket.timeout.ms = 30000 per request). */
  readonly link?: Omit<BrokerLinkOptions, 'clientId'>;
  /** The listener to use among a broker's endpoints (default: its advertised host/port). */
  readonly listenerName?: string;
  /** Backoff between attempts of a failed send (defaults 100 / 1000 ms, ±20% jitter). */
  readonly retryBackoffMs?: number;
  readonly retryBackoffMaxMs?: number;
  readonly logger?: Logger;
}

interface Job {
  readonly name: string;
  local(receiver: ControllerRequestReceiver): Promise<unknown>;
  remote(link: BrokerLink): Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

class BrokerQueue {
  readonly jobs: Job[] = [];
  running = false;
  dead = false;
  /** Ends a backoff sleep early (removal). */
  wake: (() => void) | null = null;

  constructor(
    readonly broker: BrokerInfo,
    readonly host: string,
    readonly port: number,
    /** Null for the local broker (direct calls). */
    readonly link: BrokerLink | null,
  ) {}
}

export class BrokerChannel implements ControllerChannel {
  readonly #o: BrokerChannelOptions;
  readonly #logger: Logger;
  readonly #queues = new Map<number, BrokerQueue>();
  #closed = false;

  constructor(options: BrokerChannelOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
  }

  addBroker(broker: BrokerInfo): void {
    if (this.#closed) return;
    const { host, port } = this.#endpoint(broker);
    const existing = this.#queues.get(broker.nodeId);
    if (existing !== undefined) {
      if (existing.broker.epoch === broker.epoch && existing.host === host && existing.port === port) return;
      this.#queues.delete(broker.nodeId);
      this.#kill(
        existing,
        new BrokerRemovedError(
          `broker ${broker.nodeId} re-registered (epoch ${broker.epoch}, ${host}:${port})`,
        ),
      );
    }
    const link =
      broker.nodeId === this.#o.localNodeId
        ? null
        : new BrokerLink(broker.nodeId, host, port, { ...this.#o.link, clientId: this.#o.clientId });
    this.#queues.set(broker.nodeId, new BrokerQueue(broker, host, port, link));
  }

  removeBroker(nodeId: number): void {
    const q = this.#queues.get(nodeId);
    if (q === undefined) return;
    this.#queues.delete(nodeId);
    this.#kill(q, new BrokerRemovedError(`broker ${nodeId} was removed from the controller channel`));
  }

  /** Brokers with a queue, by id. */
  brokerIds(): number[] {
    return [...this.#queues.keys()].sort((a, b) => a - b);
  }

  /** Requests waiting for `nodeId`, the one in flight included. */
  pending(nodeId: number): number {
    return this.#queues.get(nodeId)?.jobs.length ?? 0;
  }

  leaderAndIsr(nodeId: number, request: LeaderAndIsrRequest): Promise<LeaderAndIsrResponse> {
    return this.#enqueue(nodeId, 'LeaderAndIsr', {
      local: (r) => r.leaderAndIsr(request),
      remote: (link) =>
        link
          .request(leaderAndIsrApi, (v) => leaderAndIsrForVersion(request, v))
          .then((res) => completeLeaderAndIsrResponse(res, request)),
    });
  }

  updateMetadata(nodeId: number, request: UpdateMetadataRequest): Promise<UpdateMetadataResponse> {
    return this.#enqueue(nodeId, 'UpdateMetadata', {
      local: (r) => r.updateMetadata(request),
      remote: (link) => link.request(updateMetadataApi, (v) => updateMetadataForVersion(request, v)),
    });
  }

  stopReplica(nodeId: number, request: StopReplicaRequest): Promise<StopReplicaResponse> {
    return this.#enqueue(nodeId, 'StopReplica', {
      local: (r) => r.stopReplica(request),
      remote: (link) => link.request(stopReplicaApi, (v) => stopReplicaForVersion(request, v)),
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const q of this.#queues.values()) this.#kill(q, new ClientClosedError('controller channel closed'));
    this.#queues.clear();
  }

  #endpoint(broker: BrokerInfo): { host: string; port: number } {
    const name = this.#o.listenerName;
    const e = name === undefined ? undefined : broker.endpoints.find((x) => x.listener === name);
    return e ?? { host: broker.host, port: broker.port };
  }

  #enqueue<Res>(
    nodeId: number,
    name: string,
    send: { local(r: ControllerRequestReceiver): Promise<Res>; remote(link: BrokerLink): Promise<Res> },
  ): Promise<Res> {
    if (this.#closed) return Promise.reject(new ClientClosedError('controller channel closed'));
    const q = this.#queues.get(nodeId);
    if (q === undefined)
      return Promise.reject(new BrokerRemovedError(`broker ${nodeId} is not in the controller channel`));
    return new Promise<Res>((resolve, reject) => {
      q.jobs.push({
        name,
        local: send.local,
        remote: send.remote,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      void this.#drain(q);
    });
  }

  async #drain(q: BrokerQueue): Promise<void> {
    if (q.running) return;
    q.running = true;
    try {
      while (!q.dead && q.jobs.length > 0) {
        await this.#send(q, q.jobs[0]!);
        if (q.dead) return; // its jobs were failed by #kill
        q.jobs.shift();
      }
    } finally {
      q.running = false;
    }
  }

  /** Sends one request until it is answered, fails for good, or the queue dies. */
  async #send(q: BrokerQueue, job: Job): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = q.link === null ? await job.local(this.#o.localReceiver) : await job.remote(q.link);
        if (!q.dead) job.resolve(res);
        return;
      } catch (e) {
        if (q.dead) return;
        if ((e as { retriable?: unknown } | null)?.retriable !== true) {
          job.reject(e);
          return;
        }
        const delay = backoffMs(this.#o.retryBackoffMs ?? 100, this.#o.retryBackoffMaxMs ?? 1000, attempt);
        this.#logger.log('warn', `controller ${job.name} to broker ${q.broker.nodeId} failed; retrying`, {
          attempt: attempt + 1,
          retryInMs: delay,
          error: e instanceof Error ? e.message : String(e),
        });
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            q.wake = null;
            resolve();
          }, delay);
          q.wake = () => {
            clearTimeout(t);
            q.wake = null;
            resolve();
          };
        });
        if (q.dead) return;
      }
    }
  }

  #kill(q: BrokerQueue, err: Error): void {
    q.dead = true;
    const jobs = q.jobs.splice(0);
    for (const j of jobs) j.reject(err);
    q.link?.close();
    q.wake?.();
  }
}
