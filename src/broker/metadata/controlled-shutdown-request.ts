// The leaving broker's side of a controlled shutdown (Kafka's KafkaServer.controlledShutdown):
// before it stops serving, it asks the controller to move its leaderships away, and repeats
// until the controller answers that it leads nothing any more, or the retries run out. Clients
// then find the new leaders at once instead of waiting for the session timeout. When this broker
// is the controller itself, the same request is a direct call.

import { BrokerLink, type SaslOptions, type TlsConnectOptions } from '../../net/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { controlledShutdownApi } from '../../protocol/messages/generated/controlled-shutdown.js';
import type { Logger } from '../logger.js';
import type { MetadataView } from './cluster-image.js';
import type { ActiveController } from './controller/active-controller.js';

export interface ControlledShutdownOptions {
  readonly nodeId: number;
  readonly brokerEpoch: bigint;
  /** Where the controller is (this broker's view). */
  readonly image: Pick<MetadataView, 'controllerId' | 'broker'>;
  /** The controller running on this broker, used when it is the active one. */
  readonly localController: ActiveController & { readonly isActive: boolean };
  readonly maxRetries: number;
  readonly retryBackoffMs: number;
  readonly logger: Logger;
  /** Per-request timeout (Kafka: request.timeout.ms of the controller channel). */
  readonly requestTimeoutMs?: number;
  /** TLS to the controller (an SSL inter-broker listener). */
  readonly tls?: TlsConnectOptions;
  readonly sasl?: SaslOptions;
}

/** Resolves true once this broker leads nothing, false when the attempts ran out. */
export async function requestControlledShutdown(o: ControlledShutdownOptions): Promise<boolean> {
  for (let attempt = 0; attempt <= o.maxRetries; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, o.retryBackoffMs));
    try {
      const remaining = await askController(o);
      if (remaining === 0) {
        o.logger.log('info', 'controlled shutdown succeeded', { nodeId: o.nodeId, attempt: attempt + 1 });
        return true;
      }
      o.logger.log('warn', 'controlled shutdown: partitions still led here', {
        remaining,
        attempt: attempt + 1,
      });
    } catch (e) {
      o.logger.log('warn', 'controlled shutdown attempt failed', {
        attempt: attempt + 1,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }
  return false;
}

/** One attempt: the number of partitions this broker still leads. Throws when it cannot ask. */
async function askController(o: ControlledShutdownOptions): Promise<number> {
  if (o.localController.isActive) {
    return (await o.localController.controlledShutdown(o.nodeId, o.brokerEpoch)).length;
  }
  const id = o.image.controllerId;
  const target = id < 0 ? undefined : o.image.broker(id);
  if (target === undefined) throw new Error('no controller is known');
  const link = new BrokerLink(target.nodeId, target.host, target.port, {
    clientId: `samsa-broker-${o.nodeId}`,
    requestTimeoutMs: o.requestTimeoutMs ?? 30_000,
    ...(o.tls ? { tls: o.tls } : {}),
    ...(o.sasl ? { sasl: o.sasl } : {}),
  });
  try {
    const res = await link.request(
      controlledShutdownApi,
      { brokerId: o.nodeId, brokerEpoch: o.brokerEpoch },
      {
        minVersion: 2,
      },
    );
    if (res.errorCode !== ErrorCode.NONE) throw new Error(`controller answered error ${res.errorCode}`);
    return res.remainingPartitions.length;
  } finally {
    link.close();
  }
}
