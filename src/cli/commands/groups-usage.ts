// `samsa groups --help`.
export const GROUPS_USAGE = `Usage: samsa groups (--list | --describe | --reset-offsets | --delete | --delete-offsets) [options]

kafka-consumer-groups with its flags and output columns (Kafka 4's): list, describe, reset offsets,
delete. Groups of both protocols: classic, and consumer groups (KIP-848, mixed ones included).

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names, e.g. request.timeout.ms)
  --group G                     the group to act on; repeatable
  --all-groups                  every consumer group
  --output text|json            text (default, Kafka's columns) or JSON for --list, --describe
                                and --reset-offsets

  --list [--state [S,S]] [--type [T,T]]
                                group names; with --state/--type, their states/types (Classic,
                                Consumer), only those listed when values are given
  --describe                    per partition: CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST
                                CLIENT-ID, then LAG-TIME (age of the oldest unconsumed record)
    --offsets [--verbose]       the same, said explicitly; --verbose adds LEADER-EPOCH
    --members [--verbose]       per member: CONSUMER-ID HOST CLIENT-ID #PARTITIONS; --verbose adds
                                CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT
                                (epochs of a consumer group), UPGRADED in a mixed group
    --state [--verbose]         coordinator, assignment strategy, state, number of members;
                                --verbose adds GROUP-EPOCH TARGET-ASSIGNMENT-EPOCH
    --timeout MS                how long LAG-TIME may take to read records (default 5000)
  --reset-offsets               new committed offsets for a group without active members
    scenario, exactly one:      --to-earliest | --to-latest | --to-current | --to-offset N |
                                --shift-by N | --to-datetime yyyy-MM-ddTHH:mm:ss.SSS[zone] |
                                --by-duration PnDTnHnMnS | --from-file CSV
    scope (not with --from-file): --topic T[:P,P...] (repeatable) | --all-topics
    --dry-run                   print the plan only (the default)
    --execute                   commit the plan
    --export                    print the plan as CSV (what --from-file reads)
  --delete                      delete groups without active members and their offsets
  --delete-offsets --topic T[:P,P...]  delete a group's committed offsets of topics/partitions

Examples:
  samsa groups --list --state
  samsa groups --list --type consumer
  samsa groups --describe --group billing
  samsa groups --describe --all-groups --output json
  samsa groups --describe --group billing --members --verbose
  samsa groups --reset-offsets --group billing --topic orders --to-earliest --execute
  samsa groups --reset-offsets --group billing --topic orders:0,1 --shift-by -10 --dry-run
  samsa groups --reset-offsets --group billing --all-topics --by-duration PT1H --execute
  samsa groups --reset-offsets --group billing --from-file plan.csv --execute
  samsa groups --delete --group billing
`;
