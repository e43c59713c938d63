// Kafka's topic-name rules (`org.apache.kafka.common.internals.Topic`): 1-249 characters from
// [a-zA-Z0-9._-], not "." or "..". Names that differ only by '.' versus '_' collide because
// both map to the same metric name.

export const MAX_TOPIC_NAME_LENGTH = 249;
const LEGAL = /^[a-zA-Z0-9._-]+$/;

/**
 * The name as an error message echoes it: whole up to the legal length, else cut there with the
 * real length. A request may carry a 32,767-character name, and a message quoting it whole no
 * longer fits the protocol's string limit.
 */
export function echoedName(name: string): string {
  return name.length <= MAX_TOPIC_NAME_LENGTH
    ? name
    : `${name.slice(0, MAX_TOPIC_NAME_LENGTH)}... (${name.length} characters)`;
}

/** Returns why the name is invalid, or null. */
export function topicNameError(name: string): string | null {
  if (name.length === 0) return "Topic name is illegal, it can't be empty";
  if (name === '.' || name === '..') return 'Topic name cannot be "." or ".."';
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return `Topic name is illegal, it can't be longer than ${MAX_TOPIC_NAME_LENGTH} characters, topic name: ${echoedName(name)}`;
  }
  if (!LEGAL.test(name)) {
    return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return null;
}

/** The form under which two names collide. */
export function collisionKey(name: string): string {
  return name.replaceAll('.', '_');
}
