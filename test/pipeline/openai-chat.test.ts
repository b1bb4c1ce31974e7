import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAiChatAnalyzer } from '../../src/pipeline/analysis/openai-chat.js';
import { PipelineError } from '../../src/pipeline/types.js';

// ---- a chat-completions server on localhost -------------------------------------------------

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}
type Reply = { status?: number; content?: string; raw?: string } | 'hang';

const servers: http.Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function chatServer(replies: Reply[]): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: JSON.parse(data) });
      const r = replies[Math.min(seen.length - 1, replies.length - 1)];
      if (r === 'hang') return; // never answers
      const status = r.status ?? 200;
      const payload =
        r.raw ??
        JSON.stringify(
          status === 200
            ? { id: 'cmpl-1', object: 'chat.completion', model: 'test-model', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: r.content } }] }
            : { error: { message: 'Incorrect API key provided: sk-test-****cret', type: 'invalid_request_error', code: 'rate_limit_exceeded' } },
        );
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(payload);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

import { context, goodAnalysis, transcript } from '../fixtures/chat-call.js';

const cfg = (baseUrl: string, extra: Partial<ConstructorParameters<typeof OpenAiChatAnalyzer>[0]> = {}) =>
  ({ baseUrl, apiKey: 'sk-test-secret', model: 'test-model', timeoutMs: 5000, ...extra });

async function rejection(p: Promise<unknown>): Promise<PipelineError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof PipelineError, `expected PipelineError, got ${e}`);
    return e;
  }
  assert.fail('expected a rejection');
}

// ---- tests ------------------------------------------------------------------------------------

test('a good answer is validated, grounded and finalized; the request carries the prompt, schema and key', async () => {
  const { baseUrl, seen } = await chatServer([{ content: JSON.stringify(goodAnalysis()) }]);
  const analyzer = new OpenAiChatAnalyzer(cfg(baseUrl, { temperature: 0 }));
  assert.equal(analyzer.model, 'test-model');
  const a = await analyzer.analyze(transcript, context);

  assert.equal(seen.length, 1);
  const req = seen[0];
  assert.equal(req.method, 'POST');
  assert.equal(req.url, '/v1/chat/completions');
  assert.equal(req.headers.authorization, 'Bearer sk-test-secret');
  assert.equal(req.body.model, 'test-model');
  assert.equal(req.body.temperature, 0);
  assert.equal(req.body.response_format.type, 'json_schema');
  assert.equal(req.body.response_format.json_schema.strict, false);
  assert.equal(typeof req.body.response_format.json_schema.name, 'string');
  const schema = req.body.response_format.json_schema.schema;
  assert.equal(schema.type, 'object');
  assert.ok(schema.properties.actionItems && schema.properties.sentiment);
  assert.equal(schema.properties.keyPoints, undefined, 'legacy aliases are derived, not asked for');
  const [system, user] = req.body.messages;
  assert.equal(system.role, 'system');
  assert.match(system.content, /never invent/i);
  assert.equal(user.role, 'user');
  for (let i = 1; i <= 6; i++) assert.ok(user.content.includes(`seg_000${i}`), `segment ${i} in prompt`);
  assert.match(user.content, /seg_0006 \[00:25 - 00:29\] Bayview Logistics \(CONTACT\): Please send it to operations at bayview logistics dot com\./);
  assert.match(user.content, /spk_1: label "Olivia Park", name "Olivia Park", role USER/);
  assert.match(user.content, /Thursday 2025-03-27T15:40:00Z/);
  assert.match(user.content, /direction: INCOMING/);

  assert.equal(a.schemaVersion, 3);
  assert.equal(a.shortSummary, a.oneLineSummary);
  assert.equal(a.detailedSummary, a.executiveSummary);
  assert.deepEqual(a.keyPoints, ['Zoom demo on Tuesday at 11 a.m.']);
  assert.deepEqual(a.sections![0].items[1].sourceSegmentIds, ['seg_0001']);
  assert.equal(a.actionItems![0].intentMetadata!.toEmail, 'operations@bayviewlogistics.com');
  assert.equal(a.actionItems![0].ownerSpeaker, 'Olivia Park');
  assert.deepEqual(a.tags, ['demo']);
  assert.deepEqual(a.nextSteps, []);
});

test('a base URL ending in /v1, no API key, and fenced JSON are accepted', async () => {
  const { baseUrl, seen } = await chatServer([{ content: 'Here you go:\n```json\n' + JSON.stringify(goodAnalysis()) + '\n```' }]);
  const a = await new OpenAiChatAnalyzer({ baseUrl: `${baseUrl}/v1/`, model: 'llama3', timeoutMs: 5000 }).analyze(transcript, context);
  assert.equal(seen[0].url, '/v1/chat/completions');
  assert.equal(seen[0].headers.authorization, undefined);
  assert.equal(a.callType, 'sales');
});

test('invalid JSON is repaired with one retry that sends the failure back', async () => {
  const { baseUrl, seen } = await chatServer([{ content: '{"schemaVersion": 3, "callType": "sales", oops' }, { content: JSON.stringify(goodAnalysis()) }]);
  const a = await new OpenAiChatAnalyzer(cfg(baseUrl)).analyze(transcript, context);
  assert.equal(a.callType, 'sales');
  assert.equal(seen.length, 2);
  const msgs = seen[1].body.messages;
  assert.equal(msgs.length, 4);
  assert.equal(msgs[2].role, 'assistant');
  assert.equal(msgs[2].content, '{"schemaVersion": 3, "callType": "sales", oops');
  assert.equal(msgs[3].role, 'user');
  assert.match(msgs[3].content, /not a valid JSON object/);
  assert.deepEqual(seen[1].body.response_format, seen[0].body.response_format);
});

test('invalid output twice is a clear, non-retryable analysis_failed', async () => {
  const { baseUrl, seen } = await chatServer([{ content: 'I cannot help with that.' }]);
  const e = await rejection(new OpenAiChatAnalyzer(cfg(baseUrl)).analyze(transcript, context));
  assert.equal(e.reason, 'analysis_failed');
  assert.equal(e.retryable, false);
  assert.match(e.message, /invalid JSON twice/);
  assert.equal(seen.length, 2, 'exactly one repair attempt');
});

test('a schema violation is sent back as JSON-pointer errors; repaired output is accepted', async () => {
  const bad = { ...goodAnalysis(), callType: 'chit-chat', sentiment: { overall: 'ecstatic' } };
  const { baseUrl, seen } = await chatServer([{ content: JSON.stringify(bad) }, { content: JSON.stringify(goodAnalysis()) }]);
  const a = await new OpenAiChatAnalyzer(cfg(baseUrl)).analyze(transcript, context);
  assert.equal(a.sentiment!.overall, 'positive');
  const repair = seen[1].body.messages[3].content as string;
  assert.match(repair, /\/callType: Expected one of: .*"sales"/);
  assert.match(repair, /\/sentiment\/overall/);
});

test('a schema violation twice fails with analysis_failed naming the first bad path', async () => {
  const bad = { ...goodAnalysis(), actionItems: [{ title: 'x', intent: 'fax' }] };
  const { baseUrl, seen } = await chatServer([{ content: JSON.stringify(bad) }]);
  const e = await rejection(new OpenAiChatAnalyzer(cfg(baseUrl)).analyze(transcript, context));
  assert.equal(e.reason, 'analysis_failed');
  assert.match(e.message, /schema validation twice.*\/actionItems\/0\/intent/);
  assert.ok(!e.message.includes('fax'));
  assert.equal(seen.length, 2);
});

test('mechanical problems need no repair: nulls at top level, too many bullets, no schemaVersion', async () => {
  const g: Record<string, unknown> = goodAnalysis();
  delete g.schemaVersion;
  g.conversationOutcome = null;
  g.executiveSummaryBullets = Array.from({ length: 9 }, (_, i) => ({ header: `h${i}`, startTimestamp: '00:00', paragraphs: [] }));
  const { baseUrl, seen } = await chatServer([{ content: JSON.stringify(g) }]);
  const a = await new OpenAiChatAnalyzer(cfg(baseUrl)).analyze(transcript, context);
  assert.equal(seen.length, 1);
  assert.equal(a.schemaVersion, 3);
  assert.equal(a.executiveSummaryBullets!.length, 6);
  assert.equal('conversationOutcome' in a, false);
});

test('an invented email is dropped and logged without its value', async () => {
  const { baseUrl } = await chatServer([{ content: JSON.stringify(goodAnalysis('olivia.invented@bayview.example')) }]);
  const logged: unknown[] = [];
  const log = { info: () => {}, debug: () => {}, warn: (o: unknown, m?: string) => logged.push([o, m]) };
  const a = await new OpenAiChatAnalyzer(cfg(baseUrl), log as never).analyze(transcript, context);
  assert.equal(a.actionItems![0].intentMetadata!.toEmail, null);
  assert.equal(a.actionItems![0].intentMetadata!.toName, 'Bayview Logistics');
  const text = JSON.stringify(logged);
  assert.match(text, /\/actionItems\/0\/intentMetadata\/toEmail/);
  assert.ok(!text.includes('invented'), 'the dropped value is not logged');
});

test('a server that never answers times out as a retryable provider error', async () => {
  const { baseUrl } = await chatServer(['hang']);
  const started = Date.now();
  const e = await rejection(new OpenAiChatAnalyzer(cfg(baseUrl, { timeoutMs: 200 })).analyze(transcript, context));
  assert.equal(e.reason, 'analysis_provider_error');
  assert.equal(e.retryable, true);
  assert.match(e.message, /timed out after 200 ms/);
  assert.ok(Date.now() - started < 3000);
});

test('HTTP 429 and 5xx are retryable provider errors; other 4xx are not; no provider text is echoed', async () => {
  for (const [status, retryable] of [[429, true], [500, true], [503, true], [400, false], [401, false]] as const) {
    const { baseUrl, seen } = await chatServer([{ status }]);
    const e = await rejection(new OpenAiChatAnalyzer(cfg(baseUrl)).analyze(transcript, context));
    assert.equal(e.reason, 'analysis_provider_error', String(status));
    assert.equal(e.retryable, retryable, String(status));
    assert.match(e.message, new RegExp(`HTTP ${status}`));
    assert.ok(!e.message.includes('sk-test'), 'no key fragments in messages');
    assert.equal(seen.length, 1, 'transport errors are not repaired');
  }
});

test('an unreachable server is a retryable provider error', async () => {
  const { baseUrl } = await chatServer([{ content: '{}' }]);
  const s = servers[servers.length - 1];
  await new Promise<void>((r) => s.close(() => r()));
  const e = await rejection(new OpenAiChatAnalyzer(cfg(baseUrl)).analyze(transcript, context));
  assert.equal(e.reason, 'analysis_provider_error');
  assert.equal(e.retryable, true);
});
