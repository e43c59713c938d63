// AlterConfigs (key 33), v0-2: replaces the whole set of overrides of a topic or broker
// resource (keys not listed return to their defaults). Validated before anything is stored;
// ValidateOnly checks without applying. A resource listed twice is INVALID_REQUEST.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type AlterConfigsRequest,
  type AlterConfigsResponse,
  alterConfigsApi,
} from '../../protocol/messages/generated/alter-configs.js';
import { defineApi } from './api.js';
import { duplicateResources, replaceConfigs, resolveResource, toConfigMap } from './config-resources.js';

export default defineApi<AlterConfigsRequest, AlterConfigsResponse>({
  api: alterConfigsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const { broker } = ctx;
    const dups = duplicateResources(req.resources);
    const responses: AlterConfigsResponse['responses'] = [];
    for (const r of req.resources) {
      const out = {
        errorCode: ErrorCode.NONE as number,
        errorMessage: null as string | null,
        resourceType: r.resourceType,
        resourceName: r.resourceName,
      };
      responses.push(out);
      try {
        if (dups.has(`${r.resourceType}:${r.resourceName}`))
          throw new KafkaError(ErrorCode.INVALID_REQUEST, 'Duplicate resource in request.');
        const res = resolveResource(broker, r.resourceType, r.resourceName);
        await replaceConfigs(broker, res, toConfigMap(r.configs), req.validateOnly);
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        out.errorCode = e.code;
        out.errorMessage = e.message;
      }
    }
    return { throttleTimeMs: 0, responses };
  },
});
