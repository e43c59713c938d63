// IncrementalAlterConfigs (key 44), v0-1: SET (0), DELETE (1), APPEND (2) and SUBTRACT (3)
// applied to the resource's current overrides. APPEND/SUBTRACT only work on list configs; a
// list without an override starts from its default, as in Kafka.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
  incrementalAlterConfigsApi,
} from '../../protocol/messages/generated/incremental-alter-configs.js';
import { parseList } from '../config/config-def.js';
import { DESCRIBED_BROKER_CONFIGS } from '../config/inert-broker-configs.js';
import { TOPIC_CONFIGS } from '../config/topic-configs.js';
import { defineApi } from './api.js';
import { AclOp, configRefusal } from './authorize.js';
import { alterResources, type ConfigResource } from './config-resources.js';

const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

function applyOps(
  res: ConfigResource,
  ops: IncrementalAlterConfigsRequest['resources'][number]['configs'],
): Record<string, string | null> {
  const next: Record<string, string | null> = { ...res.overrides };
  const seen = new Set<string>();
  for (const op of ops) {
    if (seen.has(op.name))
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Error due to duplicate config keys: ${op.name}`);
    seen.add(op.name);
    const def = res.kind === 'topic' ? TOPIC_CONFIGS.get(op.name) : DESCRIBED_BROKER_CONFIGS.get(op.name);
    switch (op.configOperation) {
      case SET:
        next[op.name] = op.value;
        break;
      case DELETE:
        delete next[op.name];
        break;
      case APPEND:
      case SUBTRACT: {
        if (!def) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Unknown config name: ${op.name}`);
        if (def.type !== 'list') {
          const verb = op.configOperation === APPEND ? 'append' : 'subtract';
          throw new KafkaError(
            ErrorCode.INVALID_CONFIG,
            `Config value ${verb} is not allowed for config key: ${op.name}`,
          );
        }
        const current = parseList(next[op.name] ?? def.default ?? '');
        const items = parseList(op.value ?? '');
        const updated =
          op.configOperation === APPEND
            ? [...current, ...items.filter((i) => !current.includes(i))]
            : current.filter((c) => !items.includes(c));
        next[op.name] = updated.join(',');
        break;
      }
      default:
        throw new KafkaError(
          ErrorCode.INVALID_REQUEST,
          `Unknown config operation ${op.configOperation} for ${op.name}`,
        );
    }
  }
  return next;
}

export default defineApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  api: incrementalAlterConfigsApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const responses = await alterResources(
      ctx.broker,
      req.resources,
      req.validateOnly,
      (res, r) => applyOps(res, r.configs),
      (type, name) => configRefusal(ctx, AclOp.ALTER_CONFIGS, type, name),
    );
    return { throttleTimeMs: 0, responses };
  },
});
