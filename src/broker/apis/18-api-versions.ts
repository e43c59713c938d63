// ApiVersions (key 18), v0-4 (v4 only lets SupportedFeatures say MinVersion 0, KAFKA-17011).
// Built from the registry, which follows the version policy (`version-policy.ts`). The response
// header is always v0 (KIP-511). v3+ requests carry the client's software name/version,
// validated like Kafka (INVALID_REQUEST if malformed) and remembered on the connection. A
// version we do not know is answered by the dispatcher with a v0 body (see `dispatcher.ts`).

import { ErrorCode } from '../../protocol/errors.js';
import {
  type ApiVersionsRequest,
  type ApiVersionsResponse,
  apiVersionsApi,
} from '../../protocol/messages/generated/api-versions.js';
import { defineApi } from './api.js';

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
    return apiVersionsResponse(ErrorCode.NONE, ctx.broker.registry.advertised());
  },
});
