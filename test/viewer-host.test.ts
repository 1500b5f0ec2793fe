/**
 * `llmkb view` answers only requests addressed to it: a forged Host header (what a DNS-rebinding
 * page makes the browser send) gets 421 and none of the page; the server's own names get the
 * page. `--port` and `--host` are checked before anything listens or any warning is printed.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { allowedHosts } from '../src/view/host-check.js';
import { startViewServer, type ViewServer } from '../src/view/view-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

/** GET / on 127.0.0.1:`port` with the Host header `host`. */
function get(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An HTTP/1.0 request without any Host header, over a raw socket; the status line's code. */
function getWithoutHost(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end('GET / HTTP/1.0\r\n\r\n'));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('the viewer refuses a forged Host header', () => {
  let view: ViewServer;
  let port: number;
  before(async () => {
    view = await startViewServer({ resultsDir: tempDir('llmkb-viewer-host-'), port: 0 });
    port = Number(new URL(view.url).port);
  });
  after(() => view.close());

  it('its own names and port get the page', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, `[::1]:${port}`]) {
      const r = await get(port, host);
      assert.equal(r.status, 200, host);
      assert.match(r.body, /<html/i, host);
    }
  });

  it('another name, another port, a missing port or no Host at all: 421 and none of the page', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `rebind.attacker.test:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `127.0.0.1.nip.io:${port}`,
    ]) {
      const r = await get(port, host);
      assert.equal(r.status, 421, host);
      assert.doesNotMatch(r.body, /<html/i, host);
      assert.match(r.body, /Misdirected request/);
    }
    assert.equal(await getWithoutHost(port), 421);
  });
});

describe('allowedHosts: the Host values a listening address answers', () => {
  it('loopback names and the --host given, with the port; bare names only on port 80', () => {
    assert.deepEqual([...allowedHosts('127.0.0.1', 8431)].sort(), ['127.0.0.1:8431', '[::1]:8431', 'localhost:8431']);
    assert.deepEqual([...allowedHosts('Viewer.LAN', 8431)].sort(), ['127.0.0.1:8431', '[::1]:8431', 'localhost:8431', 'viewer.lan:8431']);
    assert.ok(allowedHosts('::1', 8431).has('[::1]:8431'));
    assert.deepEqual([...allowedHosts('127.0.0.1', 80)].sort(), ['127.0.0.1', '127.0.0.1:80', '[::1]', '[::1]:80', 'localhost', 'localhost:80']);
  });

  it('every interface (0.0.0.0, ::): also the addresses of this machine', () => {
    const own = Object.values(networkInterfaces())
      .flatMap((l) => l ?? [])
      .find((a) => a.family === 'IPv4' && !a.internal);
    for (const wildcard of ['0.0.0.0', '::']) {
      const allowed = allowedHosts(wildcard, 9000);
      if (own) assert.ok(allowed.has(`${own.address}:9000`), wildcard);
      assert.ok(!allowed.has('evil.example:9000'));
    }
  });
});

describe('view --port and --host are checked before anything listens (exit 2, no warning)', () => {
  const dir = tempDir('llmkb-viewer-opts-');
  it('a port beyond 65535', async () => {
    for (const port of ['99999', '65536']) {
      const r = await llmkb(['--store', join(dir, 's.sqlite'), 'view', dir, '--port', port]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--port.*must be a port number from 0 to 65535/);
      assert.doesNotMatch(r.stderr, /internal error/);
    }
  });

  it('a dotted number that is no IPv4 address, and an address of no interface here', async () => {
    const bad = await llmkb(['--store', join(dir, 's.sqlite'), 'view', dir, '--host', '256.1.1.1']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--host.*must be an IP address/);
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): assigned to no machine.
    const absent = await llmkb(['--store', join(dir, 's.sqlite'), 'view', dir, '--host', '192.0.2.1', '--port', '0']);
    assert.equal(absent.code, 2, absent.stderr);
    assert.match(absent.stderr, /cannot listen on 192\.0\.2\.1: no network interface of this machine has that address/);
    for (const r of [bad, absent]) {
      assert.doesNotMatch(r.stderr, /warning/);
      assert.doesNotMatch(r.stderr, /internal error/);
    }
  });
});
