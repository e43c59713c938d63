// DescribeConfigs (key 32), v0-4, for topics and brokers. Values, sources and synonyms follow
// Kafka's precedence (see ConfigResolver). v0 reports IsDefault instead of a source; synonyms
// (v1+) only when asked; ConfigType and documentation from v3. A broker described by the
// empty name lists the cluster-wide dynamic defaults only.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type DescribeConfigsRequest,
  type DescribeConfigsResponse,
  type DescribeConfigsResponseDescribeConfigsResourceResult,
  describeConfigsApi,
} from '../../protocol/messages/generated/describe-configs.js';
import { CONFIG_TYPE_CODE, ConfigSource } from '../config/config-def.js';
import type { ConfigEntry } from '../config/config-resolver.js';
import { defineApi } from './api.js';
import { AclOp, configRefusal } from './authorize.js';
import { resolveResource } from './config-resources.js';

function toResult(
  e: ConfigEntry,
  synonyms: boolean,
  docs: boolean,
): DescribeConfigsResponseDescribeConfigsResourceResult {
  return {
    name: e.name,
    value: e.value,
    readOnly: e.readOnly,
    isDefault: e.source === ConfigSource.DEFAULT_CONFIG,
    configSource: e.source,
    isSensitive: e.isSensitive,
    synonyms: synonyms ? e.synonyms.map((s) => ({ name: s.name, value: s.value, source: s.source })) : [],
    configType: CONFIG_TYPE_CODE[e.type],
    documentation: docs ? e.documentation : null,
  };
}

export default defineApi<DescribeConfigsRequest, DescribeConfigsResponse>({
  api: describeConfigsApi,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    const { broker, version } = ctx;
    const synonyms = version >= 1 && req.includeSynonyms;
    const docs = version >= 3 && req.includeDocumentation;
    const results: DescribeConfigsResponse['results'] = req.resources.map((r) => {
      try {
        const refused = configRefusal(ctx, AclOp.DESCRIBE_CONFIGS, r.resourceType, r.resourceName);
        if (refused !== ErrorCode.NONE) throw new KafkaError(refused);
        const res = resolveResource(broker, r.resourceType, r.resourceName);
        let entries: ConfigEntry[];
        if (res.kind === 'topic') entries = broker.configs.describeTopic(res.overrides, r.configurationKeys);
        else if (res.entity === '') {
          entries = broker.configs
            .describeBroker(r.configurationKeys ?? Object.keys(res.overrides))
            .filter((e) => Object.hasOwn(res.overrides, e.name))
            .map((e) => ({
              ...e,
              value: res.overrides[e.name]!,
              source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
              // Kafka keeps only the cluster-default synonyms when describing the cluster default.
              synonyms: e.synonyms.filter((s) => s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
            }));
        } else entries = broker.configs.describeBroker(r.configurationKeys);
        return {
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          resourceType: r.resourceType,
          resourceName: r.resourceName,
          configs: entries.map((e) => toResult(e, synonyms, docs)),
        };
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        return {
          errorCode: e.code,
          errorMessage: e.message,
          resourceType: r.resourceType,
          resourceName: r.resourceName,
          configs: [],
        };
      }
    });
    return { throttleTimeMs: 0, results };
  },
});
