// The careless operator's `npm start` on a shared network (issue 22, finding 9): development or
// local mode listening on every interface must say so at start; a loopback bind says nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startTestService } from '../support/service.js';
import { bindAddressWarning, isLoopbackHost } from '../../src/http/bind-address.js';
import { loadConfig } from '../../src/config.js';

/** Starts the service with `HOST` and returns the warnings it logged. */
async function warningsAt(host: string, env: Record<string, string> = {}): Promise<Array<{ msg: string; host?: string }>> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const t = await startTestService({ env: { HOST: host, ...env }, log: pino({ level: 'warn' }, sink) });
  await t.stop();
  return lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
}

test('local mode on 0.0.0.0 warns at start that anyone reaching the port is the local user', async () => {
  const warnings = (await warningsAt('0.0.0.0')).filter((w) => /HOST is/.test(w.msg));
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].host, '0.0.0.0');
  assert.match(warnings[0].msg, /local user/);
});

test('a loopback bind starts without the warning', async () => {
  assert.deepEqual((await warningsAt('127.0.0.1')).filter((w) => /HOST is/.test(w.msg)), []);
});

test('which hosts and modes warn', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.test']) assert.equal(isLoopbackHost(h), false, h);
  assert.match(bindAddressWarning(loadConfig({ HOST: '0.0.0.0', SERVICE_ENV: 'development' }))!, /local user/);
  assert.match(bindAddressWarning(loadConfig({ HOST: '0.0.0.0', SERVICE_ENV: 'development', IDP_PROJECT_ID: 'p' }))!, /development mode/);
  assert.equal(bindAddressWarning(loadConfig({ HOST: '0.0.0.0', SERVICE_ENV: 'production', IDP_PROJECT_ID: 'p' })), null);
  assert.equal(bindAddressWarning(loadConfig({ HOST: '127.0.0.1', SERVICE_ENV: 'development' })), null);
});
