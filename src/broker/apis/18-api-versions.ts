// ApiVersions (key 18), v0-4 (v4 only lets SupportedFeatures say MinVersion 0, KAFKA-17011).
// Built from the registry, which follows the version policy (`version-policy.ts`). The response
// header is always v0 (KIP-511). v3+ requests carry the client's software name/version,
// validated like Kafka (INVALID_REQUEST if malformed) and remembered on the connection. A
// version we do not know is answered by the dispatcher with a v0 body (see `dispatcher.ts`).
// Features (v3+, tagged fields): `transaction.version` is supported at levels 0-2 and finalized
// at the broker's `transaction.version` (KIP-890: Kafka 4 clients use transaction protocol v2
// only when it is finalized at 2 or more). As Kafka: a finalized level 0 is not listed, and a
// supported range starting at 0 is left out below v4 (older clients failed to parse it,
// KAFKA-17492).

import { ErrorCode } from '../../protocol/errors.js';
import {
  type ApiVersionsRequest,
  type ApiVersionsResponse,
  apiVersionsApi,
} from '../../protocol/messages/generated/api-versions.js';
import {
  SUPPORTED_TRANSACTION_VERSIONS,
  TRANSACTION_VERSION_FEATURE,
} from '../coordinator/txn/txn-config.js';
import { defineApi } from './api.js';
import type { BrokerServices } from './services.js';

const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export function apiVersionsResponse(
  errorCode: number,
  apiKeys: ApiVersionsResponse['apiKeys'],
): ApiVersionsResponse {
  return {
    errorCode,
    apiKeys,
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1n,
    finalizedFeatures: [],
    zkMigrationReady: false,
  };
}

export default defineApi<ApiVersionsRequest, ApiVersionsResponse>({
  api: apiVersionsApi,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    if (ctx.version >= 3) {
      if (
        !SOFTWARE_PATTERN.test(req.clientSoftwareName) ||
        !SOFTWARE_PATTERN.test(req.clientSoftwareVersion)
      ) {
        return apiVersionsResponse(ErrorCode.INVALID_REQUEST, []);
      }
      ctx.conn.clientSoftwareName = req.clientSoftwareName;
      ctx.conn.clientSoftwareVersion = req.clientSoftwareVersion;
    }
    return {
      // The registry's frozen list, shared by every answer: the encoder only reads it.
      ...apiVersionsResponse(
        ErrorCode.NONE,
        ctx.broker.registry.advertised() as ApiVersionsResponse['apiKeys'],
      ),
      ...features(ctx.broker, ctx.version),
    };
  },
});

function features(
  broker: BrokerServices,
  version: number,
): Pick<ApiVersionsResponse, 'supportedFeatures' | 'finalizedFeaturesEpoch' | 'finalizedFeatures'> {
  const tv = broker.txns?.transactionVersion;
  if (tv === undefined) return { supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [] };
  const { min, max } = SUPPORTED_TRANSACTION_VERSIONS;
  return {
    supportedFeatures:
      min === 0 && version < 4
        ? []
        : [{ name: TRANSACTION_VERSION_FEATURE, minVersion: min, maxVersion: max }],
    finalizedFeaturesEpoch: tv.epoch,
    finalizedFeatures:
      tv.level === 0
        ? []
        : [{ name: TRANSACTION_VERSION_FEATURE, maxVersionLevel: tv.level, minVersionLevel: tv.level }],
  };
}
