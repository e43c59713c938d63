// The Prometheus text written directly for the per-partition families (text-exposition.ts):
// label values escaped as the format requires, values spelled as it spells them, and the
// output read back by the strict parser.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatValue, labelString, TextFamily } from '../../src/broker/metrics/text-exposition.js';
import { parsePrometheusText, samplesOf } from '../support/prometheus-text.js';

test('label values with quotes, backslashes and newlines are escaped and parse back', () => {
  const group = 'odd "group"\\name\nline2';
  const f = new TextFamily('kafka_consumergroup_lag', 'Lag\nin records', 'gauge');
  f.sample(
    labelString([
      ['consumergroup', group],
      ['topic', 't'],
      ['partition', '0'],
    ]),
    12n,
  );
  f.sample(
    labelString([
      ['consumergroup', 'plain'],
      ['topic', 't'],
      ['partition', '1'],
    ]),
    0.5,
  );
  const text = f.text();
  assert.equal(text.split('\n').length, 5, text); // HELP, TYPE, 2 samples, final newline
  const e = parsePrometheusText(text);
  assert.equal(e.types.get('kafka_consumergroup_lag'), 'gauge');
  assert.deepEqual(
    samplesOf(e, 'kafka_consumergroup_lag', { consumergroup: group, partition: '0' }).map((x) => x.value),
    [12],
  );
  assert.deepEqual(
    samplesOf(e, 'kafka_consumergroup_lag', { consumergroup: 'plain' }).map((x) => x.value),
    [0.5],
  );
});

test('values: integers, bigints, NaN and infinities as the format spells them', () => {
  assert.equal(formatValue(3), '3');
  assert.equal(formatValue(9007199254740993n), '9007199254740993');
  assert.equal(formatValue(Number.NaN), 'NaN');
  assert.equal(formatValue(Number.POSITIVE_INFINITY), '+Inf');
  assert.equal(formatValue(Number.NEGATIVE_INFINITY), '-Inf');
  const f = new TextFamily('x', 'h', 'gauge');
  f.sample('a="1"', Number.NaN);
  assert.match(f.text(), /^x\{a="1"\} NaN$/m);
});
