// Kafka uuids in their text form: 16 random bytes as URL-safe base64 without padding. Like
// Java's `Uuid.randomUuid()`, never the zero uuid, never the reserved METADATA_TOPIC_ID (1), and
// never a value whose text starts with '-' (it would read as a command-line flag).

import { randomBytes } from 'node:crypto';

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

export function randomUuid(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (id !== ZERO_UUID && id !== METADATA_TOPIC_ID && !id.startsWith('-')) return id;
  }
}
