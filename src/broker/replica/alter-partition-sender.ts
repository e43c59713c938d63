// Sends leaders' ISR changes to the controller (Kafka's AlterPartitionManager): proposals queue
// up (one per partition — the partition itself never has two in flight), one AlterPartition
// request is in flight at a time carrying everything queued, and each partition's answer goes
// back to its proposal, which says whether to send it again. A request that fails as a whole (no
// controller known, connection lost, NOT_CONTROLLER, STALE_BROKER_EPOCH, …) is sent again after
// a backoff. When the active controller runs on this broker the request is a direct call, as the
// controlled shutdown does.

import { BrokerLink, type SaslOptions, type TlsConnectOptions } from '../../net/index.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import {
  type AlterPartitionRequest,
  type AlterPartitionResponse,
  type AlterPartitionResponsePartitionData,
  alterPartitionApi,
} from '../../protocol/messages/generated/alter-partition.js';
import type { Logger } from '../logger.js';
import type { MetadataView } from '../metadata/cluster-image.js';
import type { ActiveController } from '../metadata/controller/active-controller.js';
import type { IsrProposal } from './partition.js';

/** The version we speak: v3 carries the ISR with broker epochs. */
const VERSION = 3;

export interface AlterPartitionSenderOptions {
  readonly nodeId: number;
  readonly brokerEpoch: () => bigint;
  /** Where the controller is (this broker's view). */
  readonly image: Pick<MetadataView, 'controllerId' | 'broker'>;
  /** The controller running on this broker, called directly when it is the active one. */
  readonly localController?: ActiveController & { readonly isActive: boolean };
  readonly logger: Logger;
  /** Wait before sending a failed request again (default 100 ms, doubling up to 5 s). */
  readonly retryBackoffMs?: number;
  readonly requestTimeoutMs?: number;
  /** TLS to the controller (an SSL inter-broker listener). */
  readonly tls?: TlsConnectOptions;
  readonly sasl?: SaslOptions;
}

const key = (p: { topic: string; partition: number }) => `${p.topic}\u0000${p.partition}`;

export class AlterPartitionSender {
  readonly #options: AlterPartitionSenderOptions;
  readonly #queued = new Map<string, IsrProposal>();
  #inFlight = false;
  #failures = 0;
  #retryTimer: NodeJS.Timeout | null = null;
  #link: BrokerLink | null = null;
  #closed = false;

  constructor(options: AlterPartitionSenderOptions) {
    this.#options = options;
  }

  submit(proposal: IsrProposal): void {
    if (this.#closed) return;
    this.#queued.set(key(proposal), proposal);
    this.#maybeSend();
  }

  close(): void {
    this.#closed = true;
    this.#queued.clear();
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#link?.close();
    this.#link = null;
  }

  #maybeSend(): void {
    if (this.#inFlight || this.#retryTimer !== null || this.#queued.size === 0 || this.#closed) return;
    const batch = [...this.#queued.values()];
    this.#queued.clear();
    this.#inFlight = true;
    this.#send(batch).then(
      (res) => {
        this.#inFlight = false;
        const retry = this.#dispatch(batch, res);
        this.#failures = 0;
        this.#requeue(retry, false);
      },
      (e: unknown) => {
        this.#inFlight = false;
        this.#failures++;
        if (this.#failures === 1 || this.#failures % 50 === 0) {
          this.#options.logger.log('warn', 'AlterPartition failed, retrying', {
            partitions: batch.length,
            attempts: this.#failures,
            error: e instanceof Error ? e.message : String(e),
          });
        }
        this.#requeue(batch, true);
      },
    );
  }

  /** Puts proposals back (unless a newer one of the same partition is queued) and schedules the next send. */
  #requeue(proposals: readonly IsrProposal[], backoff: boolean): void {
    for (const p of proposals) if (!this.#queued.has(key(p))) this.#queued.set(key(p), p);
    if (this.#closed) return;
    if (proposals.length > 0 || backoff) {
      const base = this.#options.retryBackoffMs ?? 100;
      const delay = Math.min(5_000, base * 2 ** Math.min(this.#failures, 6));
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = null;
        this.#maybeSend();
      }, delay);
      this.#retryTimer.unref();
      return;
    }
    this.#maybeSend();
  }

  /** Hands each partition's answer to its proposal; returns the ones to send again. */
  #dispatch(batch: readonly IsrProposal[], res: AlterPartitionResponse): IsrProposal[] {
    const answers = new Map<string, AlterPartitionResponsePartitionData>();
    for (const t of res.topics) {
      for (const p of t.partitions) {
        const topic = batch.find((b) => b.topicId === t.topicId || b.topic === t.topicName)?.topic;
        if (topic !== undefined) answers.set(key({ topic, partition: p.partitionIndex }), p);
      }
    }
    const retry: IsrProposal[] = [];
    for (const proposal of batch) {
      const a = answers.get(key(proposal));
      if (a === undefined) {
        retry.push(proposal);
        continue;
      }
      if (a.errorCode !== ErrorCode.NONE) {
        this.#options.logger.log('info', 'AlterPartition refused', {
          topic: proposal.topic,
          partition: proposal.partition,
          isr: proposal.isr,
          error: errorInfo(a.errorCode).name,
        });
      }
      let again = false;
      try {
        again = proposal.onAnswer(a);
      } catch (e) {
        this.#options.logger.log('error', 'applying an AlterPartition answer failed', {
          topic: proposal.topic,
          partition: proposal.partition,
          error: e instanceof Error ? e.message : String(e),
        });
      }
      if (again) retry.push(proposal);
    }
    return retry;
  }

  /** The answer of the controller; a whole-request error rejects. */
  async #send(batch: readonly IsrProposal[]): Promise<AlterPartitionResponse> {
    const res = await this.#request(batch);
    if (res.errorCode !== ErrorCode.NONE)
      throw new Error(`controller answered ${errorInfo(res.errorCode).name}`);
    return res;
  }

  #request(batch: readonly IsrProposal[]): Promise<AlterPartitionResponse> {
    const body = (version: number): AlterPartitionRequest => {
      const topics = new Map<string, AlterPartitionRequest['topics'][number]>();
      for (const p of batch) {
        let t = topics.get(p.topic);
        if (t === undefined) {
          t = { topicName: p.topic, topicId: p.topicId, partitions: [] };
          topics.set(p.topic, t);
        }
        t.partitions.push({
          partitionIndex: p.partition,
          leaderEpoch: p.leaderEpoch,
          newIsr: version < 3 ? [...p.isr] : [],
          newIsrWithEpochs: version >= 3 ? p.isrWithEpochs.map((b) => ({ ...b })) : [],
          leaderRecoveryState: p.leaderRecoveryState,
          partitionEpoch: p.partitionEpoch,
        });
      }
      return {
        brokerId: this.#options.nodeId,
        brokerEpoch: this.#options.brokerEpoch(),
        topics: [...topics.values()],
      };
    };
    const local = this.#options.localController;
    if (local?.isActive) return local.alterPartition(body(VERSION), VERSION);
    const id = this.#options.image.controllerId;
    const target = id < 0 ? undefined : this.#options.image.broker(id);
    if (target === undefined) return Promise.reject(new Error('no controller is known'));
    if (
      this.#link === null ||
      this.#link.nodeId !== id ||
      this.#link.host !== target.host ||
      this.#link.port !== target.port
    ) {
      this.#link?.close();
      this.#link = new BrokerLink(id, target.host, target.port, {
        clientId: `samsa-alter-partition-${this.#options.nodeId}`,
        requestTimeoutMs: this.#options.requestTimeoutMs ?? 30_000,
        ...(this.#options.tls ? { tls: this.#options.tls } : {}),
        ...(this.#options.sasl ? { sasl: this.#options.sasl } : {}),
      });
    }
    return this.#link.request(alterPartitionApi, body, { maxVersion: VERSION });
  }
}
