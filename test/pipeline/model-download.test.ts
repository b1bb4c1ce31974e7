// The shared model download (whisper.cpp's ggml model, the ONNX speaker-embedding model): nothing
// half-written is ever left beside the model, whatever way the transfer ends.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { downloadModelFile } from '../../src/pipeline/model-download.js';
import { downloadModel as downloadWhisperModel, WhisperInitError } from '../../src/pipeline/transcription/whisper.js';

class Unavailable extends Error {}
const fail = (message: string) => new Unavailable(message);

describe('model download', () => {
  const payload = Buffer.alloc(64 * 1024, 7);
  let server: http.Server;
  let base = '';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cas-model-dl-'));
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/chunked') {
        // No declared length: only the bytes received can trip the size limit.
        res.writeHead(200);
        res.write(payload);
        res.end(payload);
      } else if (req.url === '/stalled') {
        res.writeHead(200, { 'content-length': String(payload.length) });
        res.write(payload.subarray(0, 10));
      } else if (req.url === '/model') {
        res.writeHead(200, { 'content-length': String(payload.length) });
        res.end(payload);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refused at its first chunk, leaves no temporary file (the write stream opens its file late)', async () => {
    const sub = path.join(dir, 'first-chunk');
    for (let i = 0; i < 25; i++) {
      await assert.rejects(downloadModelFile(`${base}/chunked`, path.join(sub, 'm.bin'), { what: 'test model', maxBytes: 100, fail }), (e: Error) => e instanceof Unavailable && /download interrupted \(over the 100-byte limit\)/.test(e.message));
      assert.deepEqual(fs.readdirSync(sub), [], `attempt ${i + 1}`);
    }
  });

  it('refuses a declared size over the limit before storing a byte, and a stalled transfer', async () => {
    const sub = path.join(dir, 'limits');
    await assert.rejects(downloadModelFile(`${base}/model`, path.join(sub, 'm.bin'), { what: 'test model', maxBytes: 1000, fail }), /test model download refused: 65536 bytes is over the 1000-byte limit/);
    await assert.rejects(downloadModelFile(`${base}/stalled`, path.join(sub, 'm.bin'), { what: 'test model', maxBytes: 1e6, idleTimeoutMs: 300, fail }), /download interrupted \(no data for too long\)/);
    await assert.rejects(downloadModelFile(`${base}/none`, path.join(sub, 'm.bin'), { what: 'test model', maxBytes: 1e6, fail }), /download failed \(HTTP 404\)/);
    assert.deepEqual(fs.readdirSync(sub), []);
  });

  it('keeps a file only when its hash is the configured one', async () => {
    const sub = path.join(dir, 'hash');
    const dest = path.join(sub, 'm.bin');
    await assert.rejects(downloadModelFile(`${base}/model`, dest, { what: 'test model', maxBytes: 1e6, sha256: '0'.repeat(64), fail }), /sha256 [0-9a-f]{64}, expected 0{64}/);
    assert.deepEqual(fs.readdirSync(sub), []);
    const lines: string[] = [];
    const good = createHash('sha256').update(payload).digest('hex').toUpperCase();
    await downloadModelFile(`${base}/model`, dest, { what: 'test model', maxBytes: 1e6, sha256: good, fail, log: { info: (_o, msg) => void lines.push(msg ?? '') } });
    assert.deepEqual(fs.readFileSync(dest), payload);
    assert.deepEqual(fs.readdirSync(sub), ['m.bin']);
    assert.equal(lines[0], 'downloading test model');
    assert.equal(lines.at(-1), 'test model downloaded');
  });

  it('whisper downloads through it: its own error, and the same protection', async () => {
    const sub = path.join(dir, 'whisper');
    const log = { info: () => undefined, warn: () => undefined };
    await assert.rejects(downloadWhisperModel(`${base}/model`, path.join(sub, 'ggml.bin'), 'f'.repeat(64), log), (e: Error) => e instanceof WhisperInitError && /whisper model download has sha256/.test(e.message));
    await assert.rejects(downloadWhisperModel(`${base}/none`, path.join(sub, 'ggml.bin'), undefined, log), (e: Error) => e instanceof WhisperInitError && /whisper model download failed \(HTTP 404\)/.test(e.message));
    assert.deepEqual(fs.readdirSync(sub), []);
  });
});
