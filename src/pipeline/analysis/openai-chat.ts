// Analysis through any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp
// server, LM Studio). The output is constrained by the Analysis JSON schema where the server
// supports it, then validated here anyway, because several servers accept response_format but
// enforce it loosely or not at all. One repair round-trip is allowed; after that the call fails
// with analysis_failed rather than storing a partial artifact.
import type { Logger } from 'pino';
import { Analysis, ANALYSIS_SCHEMA_VERSION, CALL_TYPES, INTENTS, PROVIDER_HINTS, CHANNELS, type AnalysisContext } from '../../domain/analysis.js';
import { formatClock, type Transcript } from '../../domain/transcript.js';
import { PipelineError, type Analyzer } from '../types.js';
import { validateAnalysis } from './validate.js';
import { clampLimits, finalizeAnalysis } from './finalize.js';
import { dropCurrentCallNumber, groundAnalysis } from './grounding.js';

export interface OpenAiChatConfig {
  /** Server root, e.g. https://api.openai.com or http://localhost:11434; a trailing /v1 is accepted. */
  baseUrl: string;
  apiKey?: string | null;
  model: string;
  /** Per request; the repair round-trip gets its own budget. */
  timeoutMs: number;
  temperature?: number;
  /**
   * How output is constrained. `json_schema` (default) sends the Analysis schema; `json_object`
   * suits servers that reject json_schema; `none` relies on the prompt alone.
   */
  responseFormat?: 'json_schema' | 'json_object' | 'none';
  maxTokens?: number;
}

type Msg = { role: 'system' | 'user' | 'assistant'; content: string };
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema sent to the model: Analysis without the legacy aliases (finalizeAnalysis derives
 * them, and asking for them invites contradictions), without followUps (superseded by
 * nextSteps) and without conversationMetrics (measured from the transcript, not asked of a
 * model). JSON.stringify drops TypeBox's symbol keys, leaving plain JSON Schema.
 */
export function requestSchema(): Obj {
  const schema = JSON.parse(JSON.stringify(Analysis)) as Obj & { properties: Obj; required?: string[] };
  for (const k of ['shortSummary', 'detailedSummary', 'keyPoints', 'followUps', 'conversationMetrics']) delete schema.properties[k];
  return schema;
}

const SYSTEM_PROMPT = [
  'You analyse transcripts of phone calls between the app user (role USER) and another party (role CONTACT) and answer with ONE JSON object that follows the given JSON schema. No prose, no markdown.',
  '',
  'Fields:',
  `- schemaVersion: ${ANALYSIS_SCHEMA_VERSION}.`,
  `- callType: one of ${CALL_TYPES.join(', ')}.`,
  '- suggestedTitle: a short title. oneLineSummary: one sentence. executiveSummary: 2 to 4 sentences. conversationOutcome: what was decided or resolved.',
  '- executiveSummaryBullets: 3 to 6 entries {header, startTimestamp ("MM:SS" of the first segment it covers, "HH:MM:SS" beyond one hour), paragraphs (1-2 short strings)}.',
  '- sections: thematic groups {id ("sec_001", "sec_002", ...), title, type (short lower-case word such as topic, logistics, pricing), summary, items [{text, importance (low|medium|high), speaker (speaker label), sourceSegmentIds}]}. Mark the few points that matter most as high.',
  '- keyDiscussionPoints: chronological {text, topic, phase (opening|middle|closing|followup), speakerId (spk_<n>, null for joint discussion), speakerLabel, speakerDisplayName, speakerRole (USER|CONTACT|UNKNOWN), importance, sourceSegmentIds}.',
  '- actionItems: launchable follow-ups someone agreed to do {title, description, ownerSpeakerId, ownerSpeakerLabel, ownerDisplayName, ownerRole, dueDate (YYYY-MM-DD or null), priority (low|medium|high), sourceSegmentIds, intent, intentMetadata}.',
  `  intent: one of ${INTENTS.join(', ')} (meeting = schedule a video or phone meeting; call = phone someone back; message = chat or SMS; reminder = self-reminder; none = nothing launchable).`,
  '  intentMetadata by intent: meeting {providerHint, attendees [{name, email}], proposedAt, durationMinutes, title, location}; email {toEmail, toName, subject, bodyPreview (1-2 sentences)}; call {phoneNumber, contactName}; message {channel, phoneNumber or handle, bodyPreview}; reminder {remindAt, title, notes}; task {title, notes}; none: omit.',
  `  providerHint (${PROVIDER_HINTS.join(', ')}) and channel (${CHANNELS.join(', ')}) only when the transcript names them; otherwise null. phoneNumber only when it differs from the number of this call.`,
  '- nextSteps: "I will do X" plans without a launcher {text, ownerSpeaker (speaker label or null), when (free text or null), sourceSegmentIds}. Do not repeat an action item here.',
  '- sentiment: {overall (positive|neutral|negative|mixed|unclear), score (-1..1, null when unclear), reason, userSentiment and contactSentiment {overall, score, notes}, progression (2 to 4 {phase, overall, note, sourceSegmentIds}), emotionalSignals (0 to 6 short adjectives)}.',
  '- tone: {overall (e.g. professional, friendly, tense, urgent), descriptors (1 to 4), formality (formal|semi-formal|informal), energy (low|medium|high), pace (slow|normal|fast), notes, byParty {userTone, contactTone: {overall, descriptors, notes}}}.',
  '- tags: short lower-case tags. qualityWarnings: audio or transcript problems you notice (garbled or cut-off text), else [].',
  '',
  'Rules:',
  '- Use only facts from the transcript. Arrays are [] when there is no evidence.',
  '- sourceSegmentIds contain only segment ids listed in the transcript (seg_...); use [] rather than guessing.',
  '- NEVER invent email addresses, phone numbers, dates or times. An email, phone number, proposedAt or remindAt must be stated in the transcript; otherwise use null. The transcript spells them out in words: write "priya dot shah at gmail dot com" as priya.shah@gmail.com and "five five five, three eight two, six zero one zero" as 555-382-6010.',
  '- Resolve relative dates ("tomorrow", "next Tuesday" = the first Tuesday after the call) against the call time given below. proposedAt and remindAt are ISO 8601 local wall-clock times without offset (YYYY-MM-DDTHH:MM:SS); use T00:00:00 when a day but no time was said, and null when no day was said. dueDate is YYYY-MM-DD when a day was said, else null.',
  '- Speakers are identified by their speakerId, label, display name and role as given. Write in the language of the transcript.',
].join('\n');

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The user message: call context, speakers, and one line per segment keyed by its id. */
export function buildUserPrompt(transcript: Transcript, context: AnalysisContext): string {
  const rec = new Date(context.recordedAt);
  const when = Number.isNaN(rec.getTime()) ? context.recordedAt : `${WEEKDAYS[rec.getUTCDay()]} ${context.recordedAt}`;
  const lines = [
    'Call:',
    `- recorded at: ${when}`,
    `- direction: ${context.direction ?? 'unknown'}`,
    `- app user (USER): ${context.userDisplayName ?? 'unknown'}`,
    `- contact (CONTACT): ${context.contactName ?? 'unknown'}`,
    `- number of this call: ${context.phoneNumber ?? 'unknown'}`,
    ...(context.title ? [`- title given at upload: ${context.title}`] : []),
    `- language: ${transcript.language}`,
    '',
    'Speakers:',
    ...transcript.speakers.map((s) => `- ${s.speakerId}: label "${s.label}", name "${s.displayName}", role ${s.role}`),
    '',
    'Transcript (segment id [start - end] speaker (role): text):',
    ...transcript.segments.map(
      (s) => `${s.id} [${formatClock(s.startSeconds)} - ${formatClock(s.endSeconds)}] ${s.speakerDisplayName} (${s.role}): ${s.text}`,
    ),
  ];
  return lines.join('\n');
}

/** Pulls a JSON object out of a completion: bare, fenced, or wrapped in a sentence. */
export function parseModelJson(content: string): { ok: true; value: unknown } | { ok: false } {
  const attempts = [content.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(content);
  if (fence) attempts.push(fence[1].trim());
  const a = content.indexOf('{');
  const b = content.lastIndexOf('}');
  if (a >= 0 && b > a) attempts.push(content.slice(a, b + 1));
  for (const s of attempts) {
    try {
      return { ok: true, value: JSON.parse(s) };
    } catch {
      // next form
    }
  }
  return { ok: false };
}

/**
 * Mechanical fixes that need no model: every top-level field is optional, so a null there means
 * "absent"; schemaVersion is ours to set; over-long arrays are truncated to the spec's limits;
 * conversationMetrics is measured by finalizeAnalysis, so a model's attempt at it is dropped.
 */
function tidy(value: unknown): unknown {
  if (!isObj(value)) return value;
  for (const [k, v] of Object.entries(value)) if (v === null) delete value[k];
  delete value.conversationMetrics;
  value.schemaVersion = ANALYSIS_SCHEMA_VERSION;
  clampLimits(value);
  return value;
}

export class OpenAiChatAnalyzer implements Analyzer {
  readonly provider = 'openai';
  readonly model: string;
  private readonly url: string;

  constructor(
    private readonly config: OpenAiChatConfig,
    private readonly log?: Pick<Logger, 'info' | 'warn' | 'debug'>,
  ) {
    this.model = config.model;
    const root = config.baseUrl.replace(/\/+$/, '');
    this.url = /\/v1$/.test(root) ? `${root}/chat/completions` : `${root}/v1/chat/completions`;
  }

  async analyze(transcript: Transcript, context: AnalysisContext, signal?: AbortSignal): Promise<Analysis> {
    const messages: Msg[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: buildUserPrompt(transcript, context) },
    ];

    let content = await this.complete(messages, signal);
    let result = this.check(content);
    if (!result.ok) {
      this.log?.warn({ provider: this.provider, model: this.model, errorCount: result.errors.length, kind: result.kind }, 'analysis output invalid; asking for a repair');
      messages.push(
        { role: 'assistant', content },
        {
          role: 'user',
          content:
            (result.kind === 'json'
              ? 'Your answer was not a valid JSON object.'
              : `Your JSON object does not match the schema. Problems (JSON pointer: message):\n${result.errors.map((e) => `- ${e}`).join('\n')}`) +
            '\nAnswer again with the complete corrected JSON object only.',
        },
      );
      content = await this.complete(messages, signal);
      result = this.check(content);
      if (!result.ok) {
        throw new PipelineError(
          'analysis_failed',
          result.kind === 'json'
            ? 'Analysis model returned invalid JSON twice'
            : `Analysis model output failed schema validation twice (${result.errors.length} errors, first at ${result.errors[0]?.split(':')[0] ?? '/'})`,
        );
      }
    }

    const grounded = groundAnalysis(result.value, transcript, context.recordedAt);
    if (grounded.violations.length > 0) {
      // Paths and kinds only: the values are personal data.
      this.log?.warn(
        { provider: this.provider, model: this.model, violations: grounded.violations.map((v) => ({ path: v.path, kind: v.kind })) },
        'analysis values not grounded in the transcript were dropped',
      );
    }
    dropCurrentCallNumber(grounded.analysis, context.phoneNumber);
    return finalizeAnalysis(grounded.analysis, transcript);
  }

  private check(content: string): { ok: true; value: Analysis } | { ok: false; kind: 'json' | 'schema'; errors: string[] } {
    const parsed = parseModelJson(content);
    if (!parsed.ok || !isObj(parsed.value)) return { ok: false, kind: 'json', errors: ['/: not a JSON object'] };
    const v = validateAnalysis(tidy(parsed.value));
    return v.ok ? v : { ok: false, kind: 'schema', errors: v.errors };
  }

  private body(messages: Msg[]): Obj {
    const body: Obj = { model: this.config.model, messages, temperature: this.config.temperature ?? 0.2, stream: false };
    if (this.config.maxTokens) body.max_tokens = this.config.maxTokens;
    const fmt = this.config.responseFormat ?? 'json_schema';
    if (fmt === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: 'call_analysis', strict: false, schema: requestSchema() } };
    else if (fmt === 'json_object') body.response_format = { type: 'json_object' };
    return body;
  }

  /** One chat-completions request; returns the assistant message content. */
  private async complete(messages: Msg[], signal?: AbortSignal): Promise<string> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const started = Date.now();

    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(this.body(messages)), signal: combined });
      text = await res.text();
    } catch (err) {
      if (timeout.aborted) {
        throw new PipelineError('analysis_provider_error', `Analysis provider timed out after ${this.config.timeoutMs} ms`, true);
      }
      if (signal?.aborted) throw new PipelineError('analysis_provider_error', 'Analysis request was cancelled', true);
      // The cause is a network error code (ECONNREFUSED, ENOTFOUND, ...), never request data.
      const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new PipelineError('analysis_provider_error', `Analysis provider unreachable (${code})`, true);
    }

    if (!res.ok) {
      // The provider's message is not echoed: some quote part of the API key or of the input.
      let code = '';
      try {
        const e = (JSON.parse(text) as { error?: { code?: unknown; type?: unknown } }).error;
        const c = typeof e?.code === 'string' ? e.code : typeof e?.type === 'string' ? e.type : '';
        if (/^[\w.-]{1,64}$/.test(c)) code = `, ${c}`;
      } catch {
        // not JSON
      }
      const retryable = res.status === 429 || res.status >= 500 || res.status === 408;
      throw new PipelineError('analysis_provider_error', `Analysis provider answered HTTP ${res.status}${code}`, retryable);
    }

    let content: unknown;
    try {
      const data = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
      content = data.choices?.[0]?.message?.content;
    } catch {
      throw new PipelineError('analysis_provider_error', 'Analysis provider answered with a malformed response', true);
    }
    this.log?.debug({ provider: this.provider, model: this.model, ms: Date.now() - started, chars: typeof content === 'string' ? content.length : 0 }, 'analysis completion received');
    // A refusal or an empty message is a bad answer, not a transport failure: the repair round-trip handles it.
    return typeof content === 'string' ? content : '';
  }
}
