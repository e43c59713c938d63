// Reads the topic list out of a "consumer" protocol subscription (ConsumerProtocolSubscription,
// int16 version prefix, then a non-flexible `[]string Topics` in every version 0–3). The
// coordinator needs only the topics: OffsetDelete refuses topics a non-empty group is
// subscribed to. Anything unparsable yields null ("unknown"), never an exception: the bytes
// come from clients.

export function subscribedTopics(metadata: Buffer): string[] | null {
  if (metadata.length < 6) return null;
  const version = metadata.readInt16BE(0);
  if (version < 0) return null;
  const count = metadata.readInt32BE(2);
  // Each topic needs at least its 2-byte length, so a larger count is malformed.
  if (count < 0 || count > (metadata.length - 6) / 2) return null;
  const topics: string[] = [];
  let pos = 6;
  for (let i = 0; i < count; i++) {
    if (pos + 2 > metadata.length) return null;
    const len = metadata.readInt16BE(pos);
    pos += 2;
    if (len < 0 || pos + len > metadata.length) return null;
    topics.push(metadata.toString('utf8', pos, pos + len));
    pos += len;
  }
  return topics;
}
