import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_RETRY_AFTER_MS, OpenAiTranscriber, languageCode, retryAfterMs, spreadText, wordsFromVerboseJson } from '../../src/pipeline/transcription/openai.js';
import { writeWav16 } from '../../src/pipeline/audio/decode.js';
import { PipelineError } from '../../src/pipeline/types.js';

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  fields: Record<string, string[]>;
  fileName: string | null;
  fileSize: number;
}

type Behaviour = (res: http.ServerResponse) => void;

let server: http.Server;
let baseUrl: string;
let behaviour: Behaviour = () => undefined;
const seen: Seen[] = [];
const hanging = new Set<http.ServerResponse>();
let tmp: string;
let wav: string;
const API_KEY = 'sk-test-SECRET-1234567890';

const json = (status: number, body: unknown): Behaviour => (res) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'openai-test-'));
  wav = path.join(tmp, 'audio16k.wav');
  await writeWav16(wav, new Float32Array(16000), 16000);
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    // Parse the multipart body with the platform's own parser, as a real server would.
    const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
    const fields: Record<string, string[]> = {};
    let fileName: string | null = null;
    let fileSize = 0;
    for (const [k, v] of form.entries()) {
      if (typeof v === 'string') (fields[k] ??= []).push(v);
      else {
        fileName = v.name;
        fileSize = v.size;
      }
    }
    seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, fields, fileName, fileSize });
    behaviour(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const r of hanging) r.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});

function transcriber(extra: Partial<ConstructorParameters<typeof OpenAiTranscriber>[0]> = {}) {
  // No part retries here: these tests look at one request's outcome (chunking.test.ts covers retries).
  return new OpenAiTranscriber({ baseUrl, apiKey: API_KEY, model: 'whisper-large-v3', timeoutMs: 2000, chunkRetries: 0, ...extra });
}

async function providerError(p: Promise<unknown>): Promise<PipelineError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof PipelineError, `expected PipelineError, got ${e}`);
    assert.equal(e.reason, 'transcription_provider_error');
    assert.doesNotMatch(e.message, /SECRET/);
    return e;
  }
  assert.fail('expected a rejection');
}

describe('OpenAiTranscriber', () => {
  it('sends the OpenAI request and maps words', async () => {
    behaviour = json(200, {
      task: 'transcribe',
      language: 'english',
      duration: 1,
      text: 'Hello there, Sam.',
      words: [
        { word: ' there,', start: 0.5, end: 0.7, probability: 0.8 },
        { word: ' Hello', start: 0.1, end: 0.4 },
        { word: ' Sam.', start: 0.75, end: 0.9, probability: 1.2 },
      ],
      segments: [{ id: 0, start: 0.1, end: 0.9, text: 'Hello there, Sam.' }],
    });
    seen.length = 0;
    const r = await transcriber().transcribe({ wavPath: wav, durationSeconds: 1 });
    assert.deepEqual(r.words, [
      { word: 'Hello', start: 0.1, end: 0.4, confidence: 1 },
      { word: 'there,', start: 0.5, end: 0.7, confidence: 0.8 },
      { word: 'Sam.', start: 0.75, end: 0.9, confidence: 1 },
    ]);
    assert.equal(r.language, 'en');
    assert.equal(r.provider, 'openai-compatible');
    assert.equal(r.model, 'whisper-large-v3');
    const req = seen[0];
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/v1/audio/transcriptions');
    assert.equal(req.auth, `Bearer ${API_KEY}`);
    assert.deepEqual(req.fields.model, ['whisper-large-v3']);
    assert.deepEqual(req.fields.response_format, ['verbose_json']);
    assert.deepEqual(req.fields['timestamp_granularities[]'], ['word', 'segment']);
    // Sent as FLAC: smaller than the 16-bit WAV of the same second.
    assert.equal(req.fileName, 'part-000.flac');
    assert.ok(req.fileSize > 0 && req.fileSize < 44 + 32000, `FLAC of ${req.fileSize} bytes`);
  });

  it('accepts a base URL ending in /v1, sends no auth header without a key, and passes the language', async () => {
    behaviour = json(200, { language: 'de', words: [{ word: 'Hallo', start: 0, end: 0.3 }] });
    seen.length = 0;
    const r = await transcriber({ baseUrl: `${baseUrl}/v1/`, apiKey: undefined, language: 'de' }).transcribe({ wavPath: wav, durationSeconds: 1 });
    assert.equal(seen[0].url, '/v1/audio/transcriptions');
    assert.equal(seen[0].auth, undefined);
    assert.deepEqual(seen[0].fields.language, ['de']);
    assert.equal(r.language, 'de');
    assert.equal(r.words[0].word, 'Hallo');
  });

  it('spreads segment text over segment times when the server returns no words', async () => {
    behaviour = json(200, {
      language: 'english',
      text: 'aa bb cccc',
      segments: [
        { start: 1, end: 2, text: ' aa bb' },
        { start: 3, end: 4, text: ' cccc' },
      ],
    });
    const r = await transcriber().transcribe({ wavPath: wav, durationSeconds: 5 });
    assert.deepEqual(
      r.words.map((w) => w.word),
      ['aa', 'bb', 'cccc'],
    );
    assert.equal(r.words[0].start, 1);
    assert.equal(r.words[0].end, 1.5);
    assert.equal(r.words[1].end, 2);
    assert.deepEqual([r.words[2].start, r.words[2].end], [3, 4]);
  });

  it('treats 429 and 5xx as retryable and other 4xx as final', async () => {
    behaviour = json(429, { error: { message: 'slow down', type: 'rate_limit_exceeded' } });
    let e = await providerError(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, true);
    assert.match(e.message, /429/);
    assert.match(e.message, /rate_limit_exceeded/);

    behaviour = json(500, 'internal error');
    e = await providerError(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, true);
    assert.match(e.message, /500/);

    behaviour = json(400, { error: { message: `bad key ${API_KEY}`, code: 'invalid_request' } });
    e = await providerError(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, false);
    assert.match(e.message, /400/);
  });

  it('waits as long as a busy provider\'s Retry-After asks before the next attempt of a part', async () => {
    // Backoff of 10 ms: only the header can make the next attempt wait a second.
    const times: number[] = [];
    behaviour = (res) => {
      times.push(Date.now());
      if (times.length === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { type: 'rate_limit_exceeded' } }));
      } else json(200, { text: 'Hello', words: [{ word: 'Hello', start: 0.1, end: 0.4 }], language: 'english' })(res);
    };
    const r = await transcriber({ chunkRetries: 1, retryDelayMs: 10 }).transcribe({ wavPath: wav, durationSeconds: 1 });
    assert.deepEqual(r.words.map((w) => w.word), ['Hello']);
    assert.equal(times.length, 2);
    assert.ok(times[1]! - times[0]! >= 950, `second attempt ${times[1]! - times[0]!} ms after the first`);
  });

  it('reads Retry-After in seconds, as a date and as retry-after-ms, and ignores junk', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    const now = Date.parse('2026-11-26T05:00:00Z');
    assert.equal(retryAfterMs(h({ 'retry-after': '3' }), now), 3000);
    assert.equal(retryAfterMs(h({ 'retry-after': '0.5' }), now), 500);
    assert.equal(retryAfterMs(h({ 'retry-after': 'Thu, 26 Nov 2026 05:00:10 GMT' }), now), 10_000);
    assert.equal(retryAfterMs(h({ 'retry-after': 'Thu, 26 Nov 2026 04:59:00 GMT' }), now), 0, 'a date in the past: at once');
    assert.equal(retryAfterMs(h({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250, 'the ms header first');
    assert.equal(retryAfterMs(h({ 'retry-after': 'soon' }), now), null);
    assert.equal(retryAfterMs(h({}), now), null);
    assert.ok(MAX_RETRY_AFTER_MS >= 1000);
  });

  it('rejects malformed bodies as final errors', async () => {
    behaviour = json(200, '{"words": [ this is not json');
    let e = await providerError(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, false);
    assert.match(e.message, /malformed/);

    behaviour = json(200, { words: 'nope' });
    e = await providerError(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, false);

    behaviour = json(200, [1, 2, 3]);
    e = await providerError(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, false);
  });

  it('gives up on a server that never answers', async () => {
    behaviour = (res) => void hanging.add(res);
    const t0 = Date.now();
    const e = await providerError(transcriber({ timeoutMs: 300 }).transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, true);
    assert.match(e.message, /300 ms/);
    assert.ok(Date.now() - t0 < 3000);
  });

  it('reports an unreachable server as a retryable network error', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const e = await providerError(transcriber({ baseUrl: `http://127.0.0.1:${port}` }).transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, true);
  });
});

describe('verbose_json mapping helpers', () => {
  it('uses words nested in segments and plain text as fallbacks', () => {
    const nested = wordsFromVerboseJson({ segments: [{ start: 0, end: 1, text: 'a b', words: [{ word: 'a', start: 0, end: 0.4 }, { word: 'b', start: 0.5, end: 1 }] }] }, 9);
    assert.deepEqual(nested.map((w) => [w.word, w.start]), [['a', 0], ['b', 0.5]]);
    const plain = wordsFromVerboseJson({ text: 'one two' }, 4);
    assert.equal(plain.length, 2);
    assert.equal(plain[1].end, 4);
    assert.throws(() => wordsFromVerboseJson({ segments: [{ text: 'x' }] }, 1));
    assert.throws(() => wordsFromVerboseJson({ words: [{ word: 'x' }] }, 1));
    assert.throws(() => wordsFromVerboseJson({}, 1));
  });

  it('maps language names to codes', () => {
    assert.equal(languageCode('english', 'xx'), 'en');
    assert.equal(languageCode('en-US', 'xx'), 'en');
    assert.equal(languageCode('Klingon', 'xx'), 'xx');
    assert.equal(languageCode(undefined, 'en'), 'en');
    assert.deepEqual(spreadText('', 0, 1), []);
  });
});
