// `message.format.version` (topic) and `log.message.format.version` (broker): deprecated since
// Kafka 3.0 and ignored once inter.broker.protocol.version is 3.0 or newer, which Samsa always
// is (it stores RecordBatch v2 only, like a 3.x broker). Accepted as no-ops with Kafka 3.9's
// validation (`MetadataVersionValidator`: a MetadataVersion string, longer forms cut to the
// release as `MetadataVersion.fromVersionString` does) and its warnings, logged when the value
// is below 0.11.0 (a message format before v2): the broker key at startup, a topic's when its
// log config is built (creation, startup, config change), with Kafka's text.

/** Kafka 3.9's `MetadataVersion` values, in order (IBP_0_8_0 … IBP_4_0_IV1). */
const IBP_VERSIONS = [
  '0.8.0',
  '0.8.1',
  '0.8.2',
  '0.9.0',
  '0.10.0-IV0',
  '0.10.0-IV1',
  '0.10.1-IV0',
  '0.10.1-IV1',
  '0.10.1-IV2',
  '0.10.2-IV0',
  '0.11.0-IV0',
  '0.11.0-IV1',
  '0.11.0-IV2',
  '1.0-IV0',
  '1.1-IV0',
  '2.0-IV0',
  '2.0-IV1',
  '2.1-IV0',
  '2.1-IV1',
  '2.1-IV2',
  '2.2-IV0',
  '2.2-IV1',
  '2.3-IV0',
  '2.3-IV1',
  '2.4-IV0',
  '2.4-IV1',
  '2.5-IV0',
  '2.6-IV0',
  '2.7-IV0',
  '2.7-IV1',
  '2.7-IV2',
  '2.8-IV0',
  '2.8-IV1',
  '3.0-IV0',
  '3.0-IV1',
  '3.1-IV0',
  '3.2-IV0',
  '3.3-IV0',
  '3.3-IV1',
  '3.3-IV2',
  '3.3-IV3',
  '3.4-IV0',
  '3.5-IV0',
  '3.5-IV1',
  '3.5-IV2',
  '3.6-IV0',
  '3.6-IV1',
  '3.6-IV2',
  '3.7-IV0',
  '3.7-IV1',
  '3.7-IV2',
  '3.7-IV3',
  '3.7-IV4',
  '3.8-IV0',
  '3.9-IV0',
  '4.0-IV0',
  '4.0-IV1',
] as const;

/** Kafka 3.9's latest production version (`inter.broker.protocol.version`'s default). */
export const LATEST_PRODUCTION_VERSION = '3.9-IV0';
/** `message.format.version` / `log.message.format.version` default (IBP_3_0_IV1). */
export const DEFAULT_MESSAGE_FORMAT_VERSION = '3.0-IV1';

const release = (v: string): string => v.replace(/-IV\d+$/, '');

/** Version string → index in IBP_VERSIONS: every exact version, and each production release. */
const BY_STRING: ReadonlyMap<string, number> = (() => {
  const m = new Map<string, number>();
  const latest = IBP_VERSIONS.indexOf(LATEST_PRODUCTION_VERSION);
  IBP_VERSIONS.forEach((v, i) => {
    if (i <= latest) m.set(release(v), i); // the release names its newest production version
  });
  IBP_VERSIONS.forEach((v, i) => {
    if (!m.has(v)) m.set(v, i);
  });
  return m;
})();

/** Kafka's `MetadataVersion.fromVersionString`: the version's index, or -1 if it is not valid. */
export function metadataVersionIndex(value: string): number {
  const segments = value.split('.');
  const keep = value.startsWith('0.') ? 3 : 2;
  const key = segments.length <= keep ? value : segments.slice(0, keep).join('.');
  return BY_STRING.get(key) ?? -1;
}

/** Config validator: null when valid, else Kafka's message. */
export function validateMetadataVersion(value: string): string | null {
  return metadataVersionIndex(value) < 0 ? `Version ${value} is not a valid version` : null;
}

/** The highest message format (magic) a version supports: 0 before 0.10.0, 1 before 0.11.0, else 2. */
export function recordVersionOf(value: string): number {
  const i = metadataVersionIndex(value);
  if (i < 0) return 2;
  if (i < IBP_VERSIONS.indexOf('0.10.0-IV0')) return 0;
  if (i < IBP_VERSIONS.indexOf('0.11.0-IV0')) return 1;
  return 2;
}

/** Kafka's `MessageFormatVersion.shouldWarn` (the inter-broker protocol being ≥ 3.0 here). */
function shouldWarn(value: string | undefined | null): value is string {
  return value !== undefined && value !== null && recordVersionOf(value.trim()) < 2;
}

/** The topic warning (`MessageFormatVersion.topicWarningMessage`), or null. */
export function topicMessageFormatWarning(
  topic: string,
  overrides: Readonly<Record<string, string>>,
  interBrokerProtocolVersion: string | null,
): string | null {
  const value = overrides['message.format.version'];
  if (!shouldWarn(value)) return null;
  const ibp = interBrokerProtocolVersion ?? LATEST_PRODUCTION_VERSION;
  return (
    `Topic configuration message.format.version with value \`${value}\` is ignored for \`${topic}\` because the ` +
    `inter-broker protocol version \`${ibp}\` is greater or equal than 3.0. This configuration is deprecated and it ` +
    'will be removed in Apache Kafka 4.0.'
  );
}

/** The broker warning (`KafkaConfig.createBrokerWarningMessage`), or null. */
export function brokerMessageFormatWarning(
  value: string | null,
  interBrokerProtocolVersion: string | null,
): string | null {
  if (!shouldWarn(value)) return null;
  const ibp = interBrokerProtocolVersion ?? LATEST_PRODUCTION_VERSION;
  return (
    `Broker configuration log.message.format.version with value ${value} is ignored because the inter-broker ` +
    `protocol version \`${ibp}\` is greater or equal than 3.0. This configuration is deprecated and it will be ` +
    'removed in Apache Kafka 4.0.'
  );
}
