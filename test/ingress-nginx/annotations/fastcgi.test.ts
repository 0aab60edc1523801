// ingress-nginx e2e annotations/fastcgi.go: backend-protocol FCGI with fastcgi-index and fastcgi-params-configmap,
// read from what a real FastCGI responder received (its answer is the request's PARAMS as JSON).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFcgiResponder, type FcgiRequest, type FcgiResponder } from '../../support/fastcgi-responder.js';
import { backendObjects, configMap } from '../../support/manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/fastcgi.go', () => {
  let s: Suite;
  let fcgi: FcgiResponder;
  const fcgiIng = (host: string, extra: Record<string, string> = {}) => ing(host, host, { path: '/hello', service: 'fastcgi-helloserver', annotations: ann({ 'backend-protocol': 'FCGI', ...extra }) });
  /** The PARAMS the responder received for GET `path` on `host` (fails unless the responder answered 200). */
  const params = async (host: string, path = '/hello'): Promise<FcgiRequest['params']> => {
    const r = await s.get(host, path);
    assert.equal(r.status, 200, `${host}${path}: ${r.body.slice(0, 200)}`);
    assert.equal(r.headers['x-responder'], 'fastcgi');
    return (JSON.parse(r.body) as FcgiRequest).params;
  };
  before(async () => {
    fcgi = await startFcgiResponder();
    s = await startSuite();
    const objects = [
      ...backendObjects('fastcgi-helloserver', fcgi.port),
      configMap('fastcgi-configmap', { SCRIPT_FILENAME: '$fastcgi_script_name', REDIRECT_STATUS: '200' }),
      fcgiIng('fastcgi'),
      fcgiIng('fastcgi-index', { 'fastcgi-index': 'index.php' }),
      fcgiIng('fastcgi-params-configmap', { 'fastcgi-params-configmap': 'fastcgi-configmap' }),
      fcgiIng('fastcgi-helloserver'),
    ];
    await s.put('fastcgi.json', objects, async () => (await s.get('fastcgi-params-configmap', '/hello')).headers['x-responder'] === 'fastcgi');
  });
  after(async () => {
    await s.stop();
    await fcgi.close();
  });

  test('should use fastcgi_pass in the configuration file', async () => {
    // fastcgi_pass with nginx's fastcgi_params: the standard CGI parameters reach the responder.
    const p = await params('fastcgi', '/hello?x=1');
    assert.equal(p['REQUEST_METHOD'], 'GET');
    assert.equal(p['SCRIPT_NAME'], '/hello');
    assert.equal(p['QUERY_STRING'], 'x=1');
    assert.equal(p['REQUEST_URI'], '/hello?x=1');
    assert.equal(p['SERVER_NAME'], 'fastcgi');
  });

  test('should add fastcgi_index in the configuration file', async () => {
    assert.equal((await params('fastcgi-index', '/hello/'))['SCRIPT_NAME'], '/hello/index.php');
    assert.equal((await params('fastcgi', '/hello/'))['SCRIPT_NAME'], '/hello/', 'without the annotation, no index');
  });

  test('should add fastcgi_param in the configuration file', async () => {
    const p = await params('fastcgi-params-configmap');
    assert.equal(p['SCRIPT_FILENAME'], '/hello');
    assert.equal(p['REDIRECT_STATUS'], '200');
  });

  test('should return OK for service with backend protocol FastCGI', async () => {
    const r = await s.get('fastcgi-helloserver', '/hello');
    assert.equal(r.status, 200);
    assert.equal((JSON.parse(r.body) as FcgiRequest).params['REQUEST_URI'], '/hello');
  });
});
