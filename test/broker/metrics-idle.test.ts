// RequestHandlerAvgIdlePercent and NetworkProcessorAvgIdlePercent: the idle fraction of the event
// loop (which handles the requests) and of the network threads. The broker runs in this test's
// process, so blocking this event loop for two seconds is blocking the broker's: its request
// handler idle fraction must drop, while network threads (num.network.threads 2) stay idle.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';
import { scaled } from '../support/timeouts.js';

const HANDLER = 'kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent';
const NETWORK = 'kafka_network_socketserver_networkprocessoravgidle_percent';

async function idle(b: TestBroker): Promise<{ handler: number; network: number }> {
  assert.ok(b.http);
  const res = await fetch(`http://127.0.0.1:${b.http.port}/metrics`, {
    signal: AbortSignal.timeout(scaled(20_000)),
  });
  const e = parsePrometheusText(await res.text());
  const handler = sampleValue(e, HANDLER);
  const network = sampleValue(e, NETWORK);
  for (const v of [handler, network]) assert.ok(v >= 0 && v <= 1, `a fraction: ${v}`);
  return { handler, network };
}

function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: the event loop runs nothing else meanwhile
  }
}

for (const threads of [1, 2]) {
  test(`num.network.threads ${threads}: blocking the event loop lowers the request handler's idle fraction`, async () => {
    const b = await startTestBroker({
      overrides: { 'http.listener': '127.0.0.1:0', 'num.network.threads': threads },
    });
    try {
      // Within the broker's first minute both readings cover the time since it started.
      const before = await idle(b);
      blockEventLoop(2000);
      const after = await idle(b);
      assert.ok(after.handler < before.handler, `handler idle ${before.handler} → ${after.handler}`);
      if (threads === 1)
        assert.ok(Math.abs(after.network - after.handler) < 0.05, 'the event loop is the network processor');
      else
        assert.ok(
          after.network > after.handler,
          `network threads idle ${after.network}, handler ${after.handler}`,
        );
    } finally {
      await b.close();
    }
  });
}
