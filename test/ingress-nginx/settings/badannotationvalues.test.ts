// ingress-nginx e2e settings/badannotationvalues.go: annotation-value-word-blocklist. Portico does not read word lists:
// it checks every annotation value against its exact syntax and parses snippets against an allowlist (docs/adr/0012),
// so a harmless comment passes whatever words it holds, and a directive outside the allowlist is refused whatever
// the list says.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const ALLOW = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };

void describe('settings/badannotationvalues.go', () => {
  let s: Suite;
  /** 'echo' when the echo backend answered, else the status. */
  const answer = async (host: string) => {
    const r = await s.get(host, '/');
    return r.status === 200 && r.headers['x-backend'] === 'echo' ? 'echo' : r.status;
  };
  /** Writes one Ingress with a configuration-snippet and a marker Ingress in one file, and waits for the marker. */
  const put = async (host: string, snippet: string) => {
    const marker = `marker.${host}`;
    await s.put(`${host}.json`, [ing(host, host, { annotations: ann({ 'configuration-snippet': snippet }) }), ing(marker, marker)], async () => (await answer(marker)) === 'echo');
    return answer(host);
  };
  before(async () => {
    s = await startSuite({ config: ALLOW });
  });
  after(() => s.stop());

  test('[BAD_ANNOTATIONS] should drop an ingress if there is an invalid character in some annotation', async () => {
    await s.config({ ...ALLOW, 'annotation-value-word-blocklist': 'something_forbidden,otherthing_forbidden,{' });
    // ingress-nginx drops the Ingress (404) for the "{" in a comment; Portico serves it: a comment does nothing.
    assert.equal(await put('invalid-value-test', '\n# abc { }'), 'echo');
  });

  test('[BAD_ANNOTATIONS] should drop an ingress if there is a forbidden word in some annotation', async () => {
    await s.config({ ...ALLOW, 'annotation-value-word-blocklist': 'something_forbidden,otherthing_forbidden,content_by_lua_block' });
    const status = await put('forbidden-value-test', '\ndefault_type text/plain;\ncontent_by_lua_block {\n  ngx.say("Hello World")\n}');
    // Refused by the snippet allowlist (content_by_lua_block is not on it): the Ingress is not served.
    assert.equal(status, 404);
  });

  test('[BAD_ANNOTATIONS] should allow an ingress if there is a default blocklist config in place', async () => {
    await s.config(ALLOW);
    assert.equal(await put('custom-allowed-value-test', '\n# bla_by_lua'), 'echo');
  });

  test('[BAD_ANNOTATIONS] should drop an ingress if there is a custom blocklist config in place and allow others to pass', async () => {
    await s.config({ ...ALLOW, 'annotation-value-word-blocklist': 'something_forbidden,otherthing_forbidden' });
    // ingress-nginx drops it (404) for the word in a comment; Portico serves it.
    assert.equal(await put('custom-forbidden-value-test', '\n# something_forbidden'), 'echo');
  });
});
