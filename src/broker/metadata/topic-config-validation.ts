// Validation of topic config overrides (CreateTopics, AlterConfigs, IncrementalAlterConfigs):
// known Kafka keys only, values checked against the key's type and validator, and the result
// must also be accepted by the storage layer. Failures are INVALID_CONFIG with Kafka's wording.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { logConfigFromProperties } from '../../storage/index.js';
import { validateConfigValue } from '../config/config-def.js';
import { TOPIC_CONFIGS } from '../config/topic-configs.js';

export function validateTopicOverrides(
  overrides: Readonly<Record<string, string | null>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(overrides)) {
    const def = TOPIC_CONFIGS.get(name);
    if (!def) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${name}`);
    if (value === null)
      throw new KafkaError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${name}`);
    const err = validateConfigValue(def, value);
    if (err) throw new KafkaError(ErrorCode.INVALID_CONFIG, err);
    out[name] = value.trim();
  }
  // The log layer has its own parser; it must agree before anything is persisted.
  logConfigFromProperties(out);
  return out;
}
