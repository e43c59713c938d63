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
