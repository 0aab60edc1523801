// Gateway API status fixtures: each case's input.yaml against the /debug/gateway document (status.json) and the
// `portico gateway` tables (status.txt), compared whole; UPDATE_FIXTURES=1 rewrites them for review.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { gatewayDoc, gatewayTables } from '../../src/inspect/gateway.js';
import { expected, fixtureCases, loadSnapshot } from '../support/fixtures.js';
import { PORTICO_GATEWAY_CONTROLLER } from '../support/gateway.js';

for (const dir of fixtureCases('gateway-status')) {
  test(`gateway status fixture ${basename(dir)}`, () => {
    const doc = gatewayDoc(loadSnapshot(dir), PORTICO_GATEWAY_CONTROLLER, { publishStatusAddress: ['192.0.2.1', 'lb.example.test'], publishService: undefined });
    const json = `${JSON.stringify(doc, null, 2)}\n`;
    assert.equal(json, expected(dir, 'status.json', json));
    const text = `${gatewayTables(doc)}\n`;
    assert.equal(text, expected(dir, 'status.txt', text));
  });
}
