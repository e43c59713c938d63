// Shared by DescribeConfigs, AlterConfigs and IncrementalAlterConfigs: resource types, resolving
// a resource to its current overrides, and validating + applying a new set of overrides.
// Broker resources: the resource name is this broker's id, or '' for the cluster-wide
// default; only Kafka's dynamic keys may be set, per-broker ones only on the broker's id
// (config/dynamic-broker-validation.ts). A refusal is INVALID_CONFIG with ZkAdminManager's
// "Invalid config value for resource ConfigResource(type=BROKER, name='1'): …" text.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { DynamicConfigError, validateDynamicBrokerConfigs } from '../config/dynamic-broker-validation.js';
import { topicNameError } from '../metadata/topic-names.js';
import type { BrokerServices } from './services.js';

export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

export type ConfigResource =
  | { readonly kind: 'topic'; readonly name: string; readonly overrides: Readonly<Record<string, string>> }
  | {
      readonly kind: 'broker';
      readonly entity: string;
      readonly overrides: Readonly<Record<string, string>>;
    };

/** Resolves a (type, name) pair. Throws KafkaError for unknown or unsupported resources. */
export function resolveResource(broker: BrokerServices, type: number, name: string): ConfigResource {
  if (type === ResourceType.TOPIC) {
    const err = topicNameError(name);
    if (err) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, err);
    const t = broker.image.topic(name);
    if (!t) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${name} does not exist.`);
    return { kind: 'topic', name, overrides: t.configs };
  }
  if (type === ResourceType.BROKER) {
    if (name !== '' && name !== String(broker.nodeId)) {
      throw new KafkaError(
        ErrorCode.INVALID_REQUEST,
        `Unexpected broker id, expected ${broker.nodeId} or empty string, but received ${name}`,
      );
    }
    return { kind: 'broker', entity: name, overrides: broker.image.brokerConfigs(name) };
  }
  throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${type}`);
}

function validateBrokerOverrides(
  entity: string,
  configs: Readonly<Record<string, string | null>>,
): Record<string, string> {
  try {
    return validateDynamicBrokerConfigs(configs, entity !== '');
  } catch (e) {
    if (!(e instanceof DynamicConfigError)) throw e;
    throw new KafkaError(
      ErrorCode.INVALID_CONFIG,
      `Invalid config value for resource ConfigResource(type=BROKER, name='${entity}'): ${e.message}`,
    );
  }
}

/** Replaces the resource's overrides with `configs` (null values are dropped for brokers). */
export async function replaceConfigs(
  broker: BrokerServices,
  resource: ConfigResource,
  configs: Readonly<Record<string, string | null>>,
  validateOnly: boolean,
): Promise<void> {
  if (resource.kind === 'topic') {
    await broker.commands.setTopicConfigs(resource.name, configs, validateOnly);
    return;
  }
  const valid = validateBrokerOverrides(resource.entity, configs);
  if (!validateOnly) await broker.commands.setBrokerConfigs(resource.entity, valid);
}

/** Collects `(name, value)` pairs, rejecting a key given twice (Kafka: INVALID_REQUEST). */
export function toConfigMap(
  entries: readonly { name: string; value: string | null }[],
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const e of entries) {
    if (Object.hasOwn(out, e.name))
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Error due to duplicate config keys: ${e.name}`);
    out[e.name] = e.value;
  }
  return out;
}

/** Marks resources that appear more than once; Kafka rejects all of their entries. */
export function duplicateResources(
  resources: readonly { resourceType: number; resourceName: string }[],
): Set<string> {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const r of resources) {
    const k = `${r.resourceType}:${r.resourceName}`;
    if (seen.has(k)) dups.add(k);
    seen.add(k);
  }
  return dups;
}

export interface AlterResourceResult {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

/**
 * The loop AlterConfigs and IncrementalAlterConfigs share: each resource is answered on its own
 * (a duplicate is INVALID_REQUEST, a KafkaError becomes its code), and `newConfigs` turns the
 * request entry and the resource's current overrides into the full new set.
 */
export async function alterResources<R extends { resourceType: number; resourceName: string }>(
  broker: BrokerServices,
  resources: readonly R[],
  validateOnly: boolean,
  newConfigs: (resource: ConfigResource, entry: R) => Readonly<Record<string, string | null>>,
  /** The ACL refusal of a resource (an error code, NONE when allowed). */
  refusal: (resourceType: number, name: string) => number = () => ErrorCode.NONE,
): Promise<AlterResourceResult[]> {
  const dups = duplicateResources(resources);
  const responses: AlterResourceResult[] = [];
  for (const r of resources) {
    const out: AlterResourceResult = {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      resourceType: r.resourceType,
      resourceName: r.resourceName,
    };
    responses.push(out);
    try {
      if (dups.has(`${r.resourceType}:${r.resourceName}`))
        throw new KafkaError(ErrorCode.INVALID_REQUEST, 'Duplicate resource in request.');
      const refused = refusal(r.resourceType, r.resourceName);
      if (refused !== ErrorCode.NONE) throw new KafkaError(refused);
      const res = resolveResource(broker, r.resourceType, r.resourceName);
      await replaceConfigs(broker, res, newConfigs(res, r), validateOnly);
    } catch (e) {
      if (!(e instanceof KafkaError)) throw e;
      out.errorCode = e.code;
      out.errorMessage = e.message;
    }
  }
  return responses;
}
