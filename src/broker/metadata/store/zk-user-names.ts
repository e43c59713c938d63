// How Kafka names a user's znode (`/config/users/<name>`): its Sanitizer, i.e. Java's
// URLEncoder (letters, digits and `.-_` kept, a space as %20, everything else as %XX of its
// UTF-8 bytes) with `*` also encoded, so `User:alice@example.com` and a name with '/' both fit
// in one path segment, and Kafka's own tools find what samsa wrote.

const JAVA_ALSO_ENCODES = /[!'()*~]/g;

export function sanitizeUserName(name: string): string {
  return encodeURIComponent(name).replace(
    JAVA_ALSO_ENCODES,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function desanitizeUserName(segment: string): string {
  return decodeURIComponent(segment.replace(/\+/g, ' '));
}

/** Kafka's default quota entity (ZooKeeperInternals.DEFAULT_STRING), never sanitized. */
export const DEFAULT_ENTITY = '<default>';

/** A user or client-id znode segment: sanitized, except the default entity's `<default>`. */
export function sanitizeEntityName(name: string): string {
  return name === DEFAULT_ENTITY ? name : sanitizeUserName(name);
}

export function desanitizeEntityName(segment: string): string {
  return segment === DEFAULT_ENTITY ? segment : desanitizeUserName(segment);
}

/** The `user-clients` entity name: Kafka's path below /config/users, `<user>/clients/<client-id>`. */
export function userClientEntityName(user: string, clientId: string): string {
  return `${sanitizeEntityName(user)}/clients/${sanitizeEntityName(clientId)}`;
}

/** The raw user and client id of a `user-clients` entity name; null when it is not one. */
export function parseUserClientEntityName(name: string): { user: string; clientId: string } | null {
  const parts = name.split('/');
  if (parts.length !== 3 || parts[1] !== 'clients' || parts[0] === '' || parts[2] === '') return null;
  try {
    return { user: desanitizeEntityName(parts[0]!), clientId: desanitizeEntityName(parts[2]!) };
  } catch {
    return null; // a malformed %-escape written by some other tool
  }
}
