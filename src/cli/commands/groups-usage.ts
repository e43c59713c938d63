// `samsa groups --help`.
export const GROUPS_USAGE = `Usage: samsa groups (--list | --describe | --reset-offsets | --delete | --delete-offsets) [options]

kafka-consumer-groups with its flags and output columns: list, describe, reset offsets, delete.

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names, e.g. request.timeout.ms)
  --group G                     the group to act on; repeatable
  --all-groups                  every consumer group
  --output text|json            text (default, Kafka's columns) or JSON for --list, --describe
                                and --reset-offsets

  --list [--state [S,S]]        group names; with --state, their states (only those listed)
  --describe                    per partition: CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST
                                CLIENT-ID, then LAG-TIME (age of the oldest unconsumed record)
    --offsets                   the same, said explicitly
    --members [--verbose]       per member: CONSUMER-ID HOST CLIENT-ID #PARTITIONS [ASSIGNMENT]
    --state                     coordinator, assignment strategy, state, number of members
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
  samsa groups --describe --group billing
  samsa groups --describe --all-groups --output json
  samsa groups --describe --group billing --members --verbose
  samsa groups --reset-offsets --group billing --topic orders --to-earliest --execute
  samsa groups --reset-offsets --group billing --topic orders:0,1 --shift-by -10 --dry-run
  samsa groups --reset-offsets --group billing --all-topics --by-duration PT1H --execute
  samsa groups --reset-offsets --group billing --from-file plan.csv --execute
  samsa groups --delete --group billing
`;
