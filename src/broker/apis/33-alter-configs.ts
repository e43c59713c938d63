// AlterConfigs (key 33), v0-2: replaces the whole set of overrides of a topic or broker
// resource (keys not listed return to their defaults). Validated before anything is stored;
// ValidateOnly checks without applying. A resource listed twice is INVALID_REQUEST.

import {
  type AlterConfigsRequest,
  type AlterConfigsResponse,
  alterConfigsApi,
} from '../../protocol/messages/generated/alter-configs.js';
import { defineApi } from './api.js';
import { AclOp, configRefusal } from './authorize.js';
import { alterResources, toConfigMap } from './config-resources.js';

export default defineApi<AlterConfigsRequest, AlterConfigsResponse>({
  api: alterConfigsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const responses = await alterResources(
      ctx.broker,
      req.resources,
      req.validateOnly,
      (_res, r) => toConfigMap(r.configs),
      (type, name) => configRefusal(ctx, AclOp.ALTER_CONFIGS, type, name),
    );
    return { throttleTimeMs: 0, responses };
  },
});
