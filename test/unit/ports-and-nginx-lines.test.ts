// The pure parts behind port checks and nginx's own lines: which ports Portico checks and how a failure is said, nginx's bind()
// error turned into that same message, and the log level of each nginx error log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { explainStartFailure, portMessage, portUses } from '../../src/controller/ports.js';
import { ErrorCodes, PorticoError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { NginxLines, nginxLevel } from '../../src/nginx/launch.js';

const config = parseFlags(['--manifests', '/m', '--http-port', '8080', '--https-port', '8443', '--healthz-port', '10254', '--status-port', '10246', '--default-server-port', '8181'], {});

void test('every listener of the flags is checked, where it listens', () => {
  assert.deepEqual(
    portUses(config).map((u) => [u.flag, u.host, u.port, u.nginx]),
    [
      ['--http-port', '', 8080, true],
      ['--https-port', '', 8443, true],
      ['--healthz-port', '', 10254, false],
      ['--status-port', '127.0.0.1', 10246, true],
      ['--default-server-port', '127.0.0.1', 8181, true],
    ],
  );
});

void test('a refused bind says the port, the flag and what to do', () => {
  const http = { flag: '--http-port', host: '', port: 80, nginx: true };
  assert.equal(portMessage(http, 'EADDRINUSE', ''), 'port 80 (--http-port) is already in use (*:80): stop the process that listens on it, or give --http-port another port');
  assert.match(portMessage(http, 'EACCES', ''), /^port 80 \(--http-port\) may not be bound by this user .*ip_unprivileged_port_start/);
  assert.equal(portMessage({ ...http, host: '::1' }, 'EOTHER', 'boom'), 'port 80 (--http-port) cannot be bound ([::1]:80): boom');
});

void test("nginx's own bind() failure at start becomes the same message, with nginx's words", () => {
  const failed = new PorticoError(
    ErrorCodes.NGINX_START_FAILED,
    'nginx did not start: nginx exited: [emerg] bind() to 0.0.0.0:8443 failed (98: Address already in use); [emerg] still could not bind()',
  );
  const explained = explainStartFailure(config, failed);
  assert.equal(explained.code, ErrorCodes.PORT_UNAVAILABLE);
  assert.equal(
    explained.message,
    'port 8443 (--https-port) is already in use (0.0.0.0:8443): stop the process that listens on it, or give --https-port another port (nginx: bind() to 0.0.0.0:8443 failed (98: Address already in use))',
  );
  assert.match(explainStartFailure(config, new PorticoError(ErrorCodes.NGINX_START_FAILED, failed.message.replace(/8443/g, '5432'))).message, /^port 5432 \(a tcp\/udp-services ConfigMap key\)/);
  const other = new PorticoError(ErrorCodes.NGINX_START_FAILED, 'nginx did not start: nginx exited: [emerg] open() "/x" failed (13: Permission denied)');
  assert.equal(explainStartFailure(config, other), other);
});

void test("nginx's error log lines are logged at nginx's level; the error lines are kept, each once", () => {
  const line = (level: string, text: string) => `2026/11/28 12:00:00 [${level}] 12#12: ${text}`;
  assert.deepEqual(
    ['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg', 'other'].map((l) => nginxLevel(line(l, 'x'))),
    ['debug', 'info', 'info', 'warn', 'error', 'error', 'error', 'error', 'info'],
  );
  assert.equal(nginxLevel('nginx: [emerg] unknown directive "x" in /w/nginx.conf:3'), 'error', 'before the error log is open');
  const lines = new NginxLines(createLogger('silent'));
  assert.equal(lines.errorText, undefined);
  const bind = line('emerg', 'bind() to 0.0.0.0:80 failed (98: Address already in use)');
  lines.write(`${line('notice', 'using the "epoll" event method')}\n${bind}\n${bind.slice(0, 20)}`);
  lines.write(`${bind.slice(20)}\n${line('emerg', 'still could not bind()')}\nnginx: [alert] could not open error log file\n`);
  assert.equal(lines.errorText, '[emerg] bind() to 0.0.0.0:80 failed (98: Address already in use); [emerg] still could not bind(); [alert] could not open error log file');
});
