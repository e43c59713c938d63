// Kafka's authorizer settings: `authorizer.class.name` turns ACLs on when it names one of
// Kafka's two ACL authorizers (ZooKeeper mode's AclAuthorizer, KRaft's StandardAuthorizer: the
// same model and rules); anything else non-empty names a plugin Samsa cannot load, so the
// broker refuses to start rather than run without the authorization its operator asked for.
// `super.users` (semicolon-separated principals) and `allow.everyone.if.no.acl.found` are the
// authorizer's own keys, read as Kafka's authorizers read them.

export const ACL_AUTHORIZER_CLASSES: readonly string[] = [
  'kafka.security.authorizer.AclAuthorizer',
  'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
];

/** Keys the authorizer reads besides `authorizer.class.name` (not KafkaConfig keys in Kafka either). */
export const AUTHORIZER_KEYS: readonly string[] = ['super.users', 'allow.everyone.if.no.acl.found'];

export interface AuthorizerSettings {
  readonly superUsers: ReadonlySet<string>;
  readonly allowEveryoneIfNoAclFound: boolean;
}

/** The settings when ACLs are on, null when they are off; throws a one-line error for an unknown class. */
export function authorizerSettings(props: ReadonlyMap<string, string>): AuthorizerSettings | null {
  const className = (props.get('authorizer.class.name') ?? '').trim();
  if (className === '') return null;
  if (!ACL_AUTHORIZER_CLASSES.includes(className))
    throw new Error(
      `authorizer.class.name=${className} is not supported: use ${ACL_AUTHORIZER_CLASSES.join(' or ')}, or leave it empty`,
    );
  const superUsers = new Set(
    (props.get('super.users') ?? '')
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  const allowEveryone =
    (props.get('allow.everyone.if.no.acl.found') ?? 'false').trim().toLowerCase() === 'true';
  return { superUsers, allowEveryoneIfNoAclFound: allowEveryone };
}
