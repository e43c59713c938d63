// The cluster's topics as the KIP-848 assignors see them (id, partition count), read live from
// this broker's metadata image, so a topic created or grown after a member subscribed is picked
// up at the next heartbeat (which then bumps the group epoch).
import type { MetadataView } from '../../metadata/cluster-image.js';
import type { TopicCatalog } from './consumer-group-types.js';

export function topicCatalog(image: MetadataView): TopicCatalog {
  return {
    byName(name) {
      const t = image.topic(name);
      return t === undefined ? undefined : { topicId: t.topicId, numPartitions: t.partitions.length };
    },
    nameOf: (topicId) => image.topicById(topicId)?.name,
    *names() {
      for (const t of image.topics) if (!t.internal) yield t.name;
    },
  };
}
