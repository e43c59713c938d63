// `min.insync.replicas` of a topic as the broker applies it now: the topic's override, else the
// (dynamic, then static) broker default. acks=all writes need at least that many replicas in the
// ISR — client produces and the coordinators' own writes (offsets, transaction state, markers).

import type { ConfigResolver } from '../config/config-resolver.js';
import type { MetadataView } from '../metadata/cluster-image.js';

export type MinIsrOf = (topic: string) => number;

export function minIsrOf(image: MetadataView, configs: ConfigResolver): MinIsrOf {
  return (topic) => topicMinIsr(image, configs, topic);
}

/** `topic`'s min.insync.replicas now; 1 for a topic the image does not have. */
export function topicMinIsr(image: MetadataView, configs: ConfigResolver, topic: string): number {
  const t = image.topic(topic);
  return Number(t ? configs.topicValue('min.insync.replicas', t.configs) : 1);
}
