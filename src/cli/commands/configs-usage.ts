// `samsa configs --help`.
export const CONFIGS_USAGE = `Usage: samsa configs (--describe | --alter) ENTITY [options]

kafka-configs with its flags and output: the dynamic configs of topics and brokers (with their
sources and synonyms), users' SCRAM credentials, and user/client quotas.

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names: security.protocol, sasl.*, ssl.*)

ENTITY, one of (users and clients may be given together):
  --entity-type topics|brokers|brokers-default|users|clients|ips  with --entity-name NAME or
                                --entity-default (brokers, users, clients, ips: the default)
  --topic T | --broker ID | --broker-defaults | --user U | --user-defaults | --client C |
  --client-defaults | --ip IP | --ip-defaults   the same, shorter
  Without a name, --describe covers every topic, every broker and the broker default, every user.

  --describe                    configs set on the entity (their source: DYNAMIC_TOPIC_CONFIG,
                                DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG)
    --all                       every config of a topic or broker, with STATIC_BROKER_CONFIG and
                                DEFAULT_CONFIG values too; sensitive values always print as null
    --output text|json          Kafka's lines (default) or JSON
  --alter
    --add-config K=V,K2=[A,B]   set configs; [ ] groups a value that contains commas
    --add-config-file FILE      set the configs of a properties file
    --delete-config K[,K2]      remove configs (back to the default); repeatable
  Users: SCRAM-SHA-256=[iterations=8192,password=PW] and SCRAM-SHA-512=[password=PW] set a
  credential (iterations 4096-16384, default 4096), --delete-config SCRAM-SHA-512 removes one.
  Users and clients: quotas producer_byte_rate, consumer_byte_rate, request_percentage,
  controller_mutation_rate. IPs: connection_creation_rate.

Examples:
  samsa configs --describe --topic orders
  samsa configs --describe --entity-type topics --entity-name orders --all
  samsa configs --alter --topic orders --add-config retention.ms=86400000,cleanup.policy=[compact,delete]
  samsa configs --alter --topic orders --delete-config retention.ms
  samsa configs --describe --entity-type brokers --entity-name 0 --all --output json
  samsa configs --alter --broker-defaults --add-config log.cleaner.threads=2
  samsa configs --alter --user alice --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret]'
  samsa configs --alter --user alice --delete-config SCRAM-SHA-256
  samsa configs --alter --user alice --client app --add-config producer_byte_rate=1048576
  samsa configs --describe --user alice
`;
