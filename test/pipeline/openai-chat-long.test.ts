// A transcript longer than the model's context through the OpenAI-compatible analyzer: analysed in
// parts (map) and merged (reduce) against a local chat server that refuses requests over its
// context limit, as llama.cpp, vLLM and OpenAI do.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnalysisContext } from '../../src/domain/analysis.js';
import type { Transcript } from '../../src/domain/transcript.js';
import { OpenAiChatAnalyzer } from '../../src/pipeline/analysis/openai-chat.js';
import { PipelineError } from '../../src/pipeline/types.js';

const CONTEXT_LIMIT = 8192;
const TOPICS = ['delivery schedule', 'invoice dispute', 'warehouse staffing', 'truck maintenance', 'contract renewal', 'insurance claim'];

interface Seen {
  kind: 'map' | 'reduce';
  promptTokens: number;
  status: number;
  segmentIds: string[];
}

const clock = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

/** What a model would say about one part: a section on the part's topic, the recurring action item. */
function partAnswer(ids: string[], text: string) {
  const topic = TOPICS.find((t) => text.includes(t)) ?? 'other';
  return {
    schemaVersion: 3,
    callType: 'business',
    suggestedTitle: `About the ${topic}`,
    oneLineSummary: `They discussed the ${topic}.`,
    executiveSummary: `The ${topic} came up.`,
    executiveSummaryBullets: [0, 1, 2].map((i) => ({ header: `${topic} ${i}`, startTimestamp: '00:00', paragraphs: [`Point ${i}.`] })),
    sections: [{ id: 'sec_001', title: topic, type: 'topic', summary: `The ${topic}.`, items: [{ text: `The ${topic} was discussed.`, importance: 'medium', speaker: 'Olivia Park', sourceSegmentIds: [ids[0], ids.at(-1)] }] }],
    keyDiscussionPoints: [{ text: `The ${topic}`, topic, phase: 'middle', speakerId: null, speakerLabel: null, speakerDisplayName: null, speakerRole: 'UNKNOWN', importance: 'medium', sourceSegmentIds: [ids[1]] }],
    actionItems: [
      {
        title: 'Send the weekly report', ownerSpeakerId: 'spk_1', ownerSpeakerLabel: 'Olivia Park', ownerDisplayName: 'Olivia Park', ownerRole: 'USER',
        dueDate: null, priority: 'medium', sourceSegmentIds: [ids[0]], intent: 'task', intentMetadata: { title: 'Send the weekly report', notes: null },
      },
    ],
    nextSteps: [],
    sentiment: { overall: 'neutral', score: 0, reason: 'Businesslike.' },
    tone: { overall: 'professional', descriptors: ['calm'], formality: 'semi-formal', energy: 'medium', pace: 'normal' },
    tags: [topic.split(' ')[0]],
  };
}

let server: http.Server;
let baseUrl: string;
const seen: Seen[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const body = JSON.parse(data) as { messages: Array<{ role: string; content: string }>; max_tokens?: number; response_format?: unknown };
      // About 3.5 characters per token, as tokenizers give for English with ids and times.
      const chars = body.messages.reduce((n, m) => n + m.content.length, 0) + JSON.stringify(body.response_format ?? '').length;
      const promptTokens = Math.ceil(chars / 3.5);
      const user = body.messages.find((m) => m.role === 'user')!.content;
      const kind = body.messages[0].content.startsWith('A phone call') ? 'reduce' : 'map';
      const segmentIds = [...user.matchAll(/^(seg_\d+) \[/gm)].map((m) => m[1]);
      const send = (status: number, payload: unknown) => {
        seen.push({ kind, promptTokens, status, segmentIds });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (promptTokens + (body.max_tokens ?? 0) > CONTEXT_LIMIT) {
        return send(400, { error: { message: 'This model maximum context length is 8192 tokens', type: 'invalid_request_error', code: 'context_length_exceeded' } });
      }
      const parts = [...user.matchAll(/"part":(\d+)/g)].length;
      const content =
        kind === 'map'
          ? partAnswer(segmentIds, user)
          : {
              callType: 'business',
              suggestedTitle: 'Operations review',
              oneLineSummary: `A review in ${parts} parts, from the delivery schedule to the insurance claim.`,
              executiveSummary: 'They went through delivery, invoices, staffing, maintenance, the contract and insurance.',
              conversationOutcome: 'Weekly reports continue.',
              executiveSummaryBullets: [
                { header: 'Start', startTimestamp: '00:00', paragraphs: ['Delivery schedule.'] },
                { header: 'Middle', startTimestamp: '00:30:00', paragraphs: ['Staffing and maintenance.'] },
                { header: 'End', startTimestamp: '01:00:00', paragraphs: ['Insurance claim.'] },
              ],
              sentiment: { overall: 'neutral', score: 0.1, reason: 'Businesslike throughout.' },
              tone: { overall: 'professional', descriptors: ['calm'], formality: 'semi-formal', energy: 'medium', pace: 'normal' },
              tags: ['operations'],
            };
      send(200, { id: 'c', object: 'chat.completion', model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(content) } }] });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** About an hour of talk: 180 segments of 20 s, a topic for each sixth of the call. */
function longTranscript(): Transcript {
  const names = ['Olivia Park', 'Bayview Logistics'];
  const count = 180;
  return {
    schemaVersion: 2,
    callId: '2d9f6b1a-5c3e-4e8f-9a7b-1c2d3e4f5a6b',
    language: 'en',
    durationSeconds: count * 20,
    cleanText: '',
    speakers: names.map((n, i) => ({
      speakerId: `spk_${i + 1}`, sourceSpeakerId: `S${i}`, label: n, displayName: n, role: i ? ('CONTACT' as const) : ('USER' as const),
      confidence: 'HIGH' as const, labelSource: 'CONTACT_METADATA' as const, voiceMatchScore: null, voiceProfileMatched: null,
    })),
    segments: Array.from({ length: count }, (_, i) => ({
      id: `seg_${String(i + 1).padStart(4, '0')}`, speaker: `S${i % 2}`, speakerLabel: names[i % 2], speakerDisplayName: names[i % 2], speakerId: `spk_${(i % 2) + 1}`,
      sourceSpeakerId: `S${i % 2}`, role: i % 2 ? ('CONTACT' as const) : ('USER' as const), startSeconds: i * 20, endSeconds: i * 20 + 18,
      text: `About the ${TOPICS[Math.floor((i * TOPICS.length) / count)]}: we went over the numbers again at ${clock(i * 20)} and agreed to send the weekly report as usual.`,
      alignmentConfidence: 'HIGH',
    })),
    speakerResolution: {
      strategyVersion: 2, usedUserDisplayName: true, usedContactName: true, usedDirection: true, usedPhoneFallback: false,
      voiceEmbeddingEnabled: false, voiceProfileUsed: false, voiceMatchStatus: 'DISABLED', totalSpeakerCount: 2, resolvedSpeakerCount: 2, warnings: [],
    },
    pipeline: { transcriptionProvider: 't', transcriptionModel: 't', diarizationProvider: 'd', diarizationModel: 'd', alignmentVersion: '1', normalizationVersion: 3, status: 'COMPLETED' },
    createdAt: '2025-03-27T15:45:00Z',
  };
}

const context: AnalysisContext = { userDisplayName: 'Olivia Park', contactName: 'Bayview Logistics', phoneNumber: null, direction: 'OUTGOING', recordedAt: '2025-03-27T15:40:00Z', title: null };

describe('OpenAiChatAnalyzer on a transcript beyond its context', () => {
  it('analyses in parts that fit, keeps sourceSegmentIds, and summarises the whole call', async () => {
    seen.length = 0;
    const transcript = longTranscript();
    const progress: Array<{ done: number; total: number }> = [];
    const analyzer = new OpenAiChatAnalyzer({ baseUrl, model: 'm', timeoutMs: 10_000, contextTokens: CONTEXT_LIMIT, maxTokens: 1000 });
    const a = await analyzer.analyze(transcript, context, undefined, (p) => progress.push(p));

    const maps = seen.filter((s) => s.kind === 'map');
    assert.ok(maps.length >= 3, `${maps.length} parts`);
    assert.equal(seen.filter((s) => s.kind === 'reduce').length, 1);
    assert.ok(seen.every((s) => s.status === 200), JSON.stringify(seen.map((s) => [s.kind, s.promptTokens])));
    // The parts are consecutive and together hold every segment once.
    assert.deepEqual(maps.flatMap((m) => m.segmentIds), transcript.segments.map((s) => s.id));

    // Lists joined in order, ids renumbered, each item's sources inside its own part.
    assert.equal(a.sections!.length, maps.length);
    assert.deepEqual(a.sections!.map((s) => s.id), maps.map((_, i) => `sec_${String(i + 1).padStart(3, '0')}`));
    a.sections!.forEach((sec, i) => {
      const ids = sec.items.flatMap((it) => it.sourceSegmentIds);
      assert.ok(ids.length > 0 && ids.every((id) => maps[i].segmentIds.includes(id)), `section ${i}`);
    });
    assert.equal(a.keyDiscussionPoints!.length, maps.length);
    assert.equal(a.sections![0].title, TOPICS[0]);
    assert.equal(a.sections!.at(-1)!.title, TOPICS.at(-1));
    // The action item every part reported is one item pointing at all of them.
    assert.equal(a.actionItems!.length, 1);
    assert.equal(a.actionItems![0].sourceSegmentIds!.length, maps.length);

    // The overview comes from the reduce step, which saw every part.
    assert.equal(a.suggestedTitle, 'Operations review');
    assert.equal(a.oneLineSummary, `A review in ${maps.length} parts, from the delivery schedule to the insurance claim.`);
    assert.equal(a.executiveSummaryBullets!.length, 3);
    assert.deepEqual(progress.at(-1), { done: maps.length + 1, total: maps.length + 1 });
    assert.equal(progress.length, maps.length + 1);
  });

  it('a transcript that fits is one request; the same long one sent whole is refused by the server', async () => {
    seen.length = 0;
    const short = longTranscript();
    short.segments = short.segments.slice(0, 10);
    await new OpenAiChatAnalyzer({ baseUrl, model: 'm', timeoutMs: 10_000, contextTokens: CONTEXT_LIMIT, maxTokens: 1000 }).analyze(short, context);
    assert.deepEqual(seen.map((s) => s.kind), ['map']);

    // Configured with a context larger than the server's, the adapter sends it whole and fails clearly.
    seen.length = 0;
    const wrong = new OpenAiChatAnalyzer({ baseUrl, model: 'm', timeoutMs: 10_000, contextTokens: 1_000_000, maxTokens: 1000 });
    await assert.rejects(wrong.analyze(longTranscript(), context), (e: unknown) => {
      assert.ok(e instanceof PipelineError);
      assert.equal(e.reason, 'analysis_provider_error');
      assert.match(e.message, /HTTP 400, context_length_exceeded/);
      return true;
    });
  });
});
