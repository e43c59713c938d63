# kafka-python 2.0.2 against a broker's dynamic configs (argv: bootstrap, broker id, JSON file of
# {"readOnly": [...], "perBroker": {key: value}, "clusterWide": {key: value}}). Prints one JSON
# object: what DescribeConfigs said per key, the answer to AlterConfigs for every read-only key
# (one request each), and the answers to setting the dynamic keys on the broker and on the
# cluster default, then the broker's values and sources for them (kafka-python cannot describe
# the cluster default: it sends broker resources to the broker whose id is the name).
import json
import sys

from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

bootstrap, broker_id, spec_file = sys.argv[1], sys.argv[2], sys.argv[3]
with open(spec_file) as f:
    spec = json.load(f)
admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id='py-broker-configs')


def describe(name):
    res = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, name)], include_synonyms=True)
    out = {}
    for resource in res[0].resources:
        # v1 entries: (name, value, read_only, config_source, is_sensitive, synonyms)
        for entry in resource[4]:
            out[entry[0]] = {'value': entry[1], 'readOnly': entry[2], 'source': entry[3]}
    return out


def alter(name, configs):
    res = admin.alter_configs([ConfigResource(ConfigResourceType.BROKER, name, configs=configs)])
    code, message = res.resources[0][0], res.resources[0][1]
    return {'error': code, 'message': message}


before = describe(broker_id)
refused = {key: alter(broker_id, {key: 'x'}) for key in spec['readOnly']}
per_broker = alter(broker_id, spec['perBroker'])
cluster_wide = alter('', spec['clusterWide'])
after = describe(broker_id)
admin.close()
print(json.dumps({
    'readOnly': {k: v['readOnly'] for k, v in before.items()},
    'refused': refused,
    'perBroker': per_broker,
    'clusterWide': cluster_wide,
    'after': {k: after.get(k) for k in list(spec['perBroker']) + list(spec['clusterWide'])},
}))
