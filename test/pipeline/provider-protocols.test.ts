// The OpenAI-compatible adapters against a mock that validates every request they send and every
// response it serves against the provider's published OpenAPI description (test/support/openai-mock.ts):
// success, an error body, 429 with Retry-After, 5xx, a provider that never answers, and malformed JSON.
// Errors are PipelineErrors with the stable reason; retryable exactly when a retry can help; no
// provider text (which can quote the key or the transcript) in the message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpenAiTranscriber } from '../../src/pipeline/transcription/openai.js';
import { OpenAiChatAnalyzer } from '../../src/pipeline/analysis/openai-chat.js';
import { writeWav16 } from '../../src/pipeline/audio/decode.js';
import { PipelineError } from '../../src/pipeline/types.js';
import { OpenAiMock, type MockReply } from '../support/openai-mock.js';
import { context, goodAnalysis, transcript } from '../fixtures/chat-call.js';

const API_KEY = 'sk-test-PROTOCOL-0123456789';
const providerError = (status: number, type: string, code: string | null): MockReply => ({
  status,
  json: { error: { message: `Provider says no. Key ${API_KEY} quoted back.`, type, param: null, code } },
});

async function rejection(p: Promise<unknown>): Promise<PipelineError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof PipelineError, `expected a PipelineError, got ${e}`);
    assert.ok(!e.message.includes(API_KEY) && !e.message.includes('Provider says'), 'no provider text in the message');
    return e;
  }
  assert.fail('expected a rejection');
}

let mock: OpenAiMock;
let tmp: string;
let wav: string;

before(async () => {
  mock = await OpenAiMock.start();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cas-protocol-'));
  wav = path.join(tmp, 'audio16k.wav');
  await writeWav16(wav, new Float32Array(16000), 16000);
});

after(async () => {
  // Every request the adapters sent, and every response scripted here, matched the published schema.
  assert.deepEqual(mock.requestViolations, []);
  assert.deepEqual(mock.responseViolations, []);
  await mock.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('transcription adapter against createTranscription', () => {
  // No retries of a part inside the adapter: these tests are about how each answer is classified
  // (the part retries are tested in transcription-chunks.test.ts).
  const transcriber = (timeoutMs = 5000) => new OpenAiTranscriber({ baseUrl: mock.baseUrl, apiKey: API_KEY, model: 'whisper-1', timeoutMs, language: 'en', chunkRetries: 0 });

  test('a verbose_json answer gives timed words; the request is what the schema describes', async () => {
    mock.replies = [
      {
        status: 200,
        json: {
          language: 'english',
          duration: 1,
          text: 'Hello there.',
          words: [{ word: 'Hello', start: 0.1, end: 0.4 }, { word: 'there', start: 0.45, end: 0.8 }],
          segments: [{ id: 0, seek: 0, start: 0, end: 1, text: 'Hello there.', tokens: [1, 2], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01 }],
        },
      },
    ];
    const before = mock.seen.length;
    const r = await transcriber().transcribe({ wavPath: wav, durationSeconds: 1 });
    assert.equal(r.words.length, 2);
    assert.ok(r.words[0].start < r.words[1].start);
    const seen = mock.seen[before];
    assert.equal(seen.operationId, 'createTranscription');
    assert.equal(seen.authorization, `Bearer ${API_KEY}`);
    assert.equal(seen.body.response_format, 'verbose_json');
    assert.deepEqual(seen.body['timestamp_granularities[]'], ['word', 'segment']);
  });

  test('an error body is a non-retryable provider error naming only its code', async () => {
    mock.replies = [providerError(400, 'invalid_request_error', 'invalid_value')];
    const e = await rejection(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.reason, 'transcription_provider_error');
    assert.equal(e.retryable, false);
    assert.match(e.message, /HTTP 400 \(invalid_value\)/);
  });

  test('429 with Retry-After and 5xx are retryable', async () => {
    mock.replies = [{ ...(providerError(429, 'requests', 'rate_limit_exceeded') as { status: number; json: unknown }), headers: { 'retry-after': '7' } }];
    const limited = await rejection(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(limited.retryable, true);
    assert.match(limited.message, /HTTP 429/);
    mock.replies = [providerError(503, 'server_error', null)];
    assert.equal((await rejection(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }))).retryable, true);
  });

  test('a provider that never answers times out as a retryable error', async () => {
    mock.replies = ['hang'];
    const started = Date.now();
    const e = await rejection(transcriber(400).transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(e.retryable, true);
    assert.match(e.message, /no answer within 400 ms/);
    assert.ok(Date.now() - started < 5000);
  });

  test('a malformed JSON answer is a non-retryable provider error', async () => {
    mock.replies = [{ status: 200, raw: '{"text": "Hello' }];
    const broken = await rejection(transcriber().transcribe({ wavPath: wav, durationSeconds: 1 }));
    assert.equal(broken.retryable, false);
    assert.match(broken.message, /not JSON/);
  });
});

describe('chat adapter against createChatCompletion', () => {
  const analyzer = (timeoutMs = 5000) => new OpenAiChatAnalyzer({ baseUrl: mock.baseUrl, apiKey: API_KEY, model: 'gpt-4o-mini', timeoutMs });
  const completion = (content: string): MockReply => ({
    status: 200,
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_795_000_000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content, refusal: null } }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    },
  });

  test('a good completion is validated into an analysis; the request (json_schema response format) matches the schema', async () => {
    mock.replies = [completion(JSON.stringify(goodAnalysis()))];
    const before = mock.seen.length;
    const a = await analyzer().analyze(transcript, context);
    assert.equal(a.suggestedTitle, 'Demo booked with Bayview Logistics');
    const seen = mock.seen[before];
    assert.equal(seen.operationId, 'createChatCompletion');
    assert.equal(seen.body.response_format.type, 'json_schema');
    assert.equal(seen.body.stream, false);
  });

  test('an error body is a non-retryable provider error; 429 with Retry-After and 5xx are retryable', async () => {
    mock.replies = [providerError(401, 'invalid_request_error', 'invalid_api_key')];
    const denied = await rejection(analyzer().analyze(transcript, context));
    assert.equal(denied.reason, 'analysis_provider_error');
    assert.equal(denied.retryable, false);
    mock.replies = [{ ...(providerError(429, 'requests', 'rate_limit_exceeded') as { status: number; json: unknown }), headers: { 'retry-after': '3' } }];
    assert.equal((await rejection(analyzer().analyze(transcript, context))).retryable, true);
    mock.replies = [providerError(500, 'server_error', null)];
    assert.equal((await rejection(analyzer().analyze(transcript, context))).retryable, true);
  });

  test('a provider that never answers times out as a retryable error', async () => {
    mock.replies = ['hang'];
    const e = await rejection(analyzer(400).analyze(transcript, context));
    assert.equal(e.reason, 'analysis_provider_error');
    assert.equal(e.retryable, true);
  });

  test('a malformed response envelope is a retryable provider error; content that is not JSON twice fails for good', async () => {
    // A cut-off envelope is what a dropped connection or a gateway produces: worth another try.
    mock.replies = [{ status: 200, raw: '{"id": "chatcmpl-1", "choices": [' }];
    const broken = await rejection(analyzer().analyze(transcript, context));
    assert.equal(broken.reason, 'analysis_provider_error');
    assert.equal(broken.retryable, true);
    mock.replies = [completion('Sure! Here is the analysis: {'), completion('still not JSON')];
    const garbled = await rejection(analyzer().analyze(transcript, context));
    assert.equal(garbled.reason, 'analysis_failed');
    assert.equal(garbled.retryable, false);
  });
});
