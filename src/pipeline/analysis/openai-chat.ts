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
  /**
   * The model's context window in tokens (default 32 768). A transcript whose prompt does not fit
   * is analysed in parts and the parts' analyses merged (map-reduce).
   */
  contextTokens?: number;
}

export const DEFAULT_CONTEXT_TOKENS = 32_768;
/** Answer room kept free in the context when maxTokens is not set. */
const DEFAULT_ANSWER_TOKENS = 4_096;

/**
 * Tokens of a text, estimated high: about 3 characters per token, where English prose runs near 4
 * and JSON, ids and times nearer 3. No tokenizer: the servers this adapter speaks to use many.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3);
}

/** Progress of an analysis done in parts. */
export type AnalysisProgress = (p: { done: number; total: number }) => void;

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
  `  intent: one of ${INTENTS.join(', ')} (meeting = schedule a video or phone meeting; call = phone someone back; message = chat or SMS; reminder = the user's own memory aid or an appointment the user must keep, being somewhere or available at a time; task = something to get done, even with a deadline or a place; none = nothing launchable).`,
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
export function buildUserPrompt(transcript: Transcript, context: AnalysisContext, part?: { index: number; count: number }): string {
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
    ...(part
      ? [
          `- this request holds part ${part.index + 1} of ${part.count} of the transcript (${formatClock(transcript.segments[0]?.startSeconds ?? 0)} to ${formatClock(transcript.segments.at(-1)?.endSeconds ?? 0)}); the call is longer.`,
          '  Analyse this part only: summaries, sections, points and items describe what is said here; another step combines the parts.',
        ]
      : []),
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

  async analyze(transcript: Transcript, context: AnalysisContext, signal?: AbortSignal, onProgress?: AnalysisProgress): Promise<Analysis> {
    const budget = this.promptBudget();
    let analysis: Analysis;
    if (estimateTokens(buildUserPrompt(transcript, context)) <= budget) {
      analysis = await this.analyzeText(transcript, context, signal);
    } else {
      // Map: each part analysed like a short call; reduce: lists joined, overview asked for once.
      const parts = splitTranscript(transcript, context, budget);
      const partials: Analysis[] = [];
      for (const [index, segments] of parts.entries()) {
        const part = { ...transcript, segments };
        partials.push(groundAnalysis(await this.analyzeText(part, context, signal, { index, count: parts.length }), part, context.recordedAt).analysis);
        onProgress?.({ done: index + 1, total: parts.length + 1 });
      }
      this.log?.info({ provider: this.provider, model: this.model, parts: parts.length }, 'long transcript analysed in parts');
      analysis = await this.reduce(partials, parts, transcript, context, budget, signal);
      onProgress?.({ done: parts.length + 1, total: parts.length + 1 });
    }

    const grounded = groundAnalysis(analysis, transcript, context.recordedAt);
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

  /** Tokens left for the user message: the context less the system prompt, the schema and the answer. */
  private promptBudget(): number {
    const context = this.config.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
    const answer = this.config.maxTokens ?? DEFAULT_ANSWER_TOKENS;
    const fixed = estimateTokens(SYSTEM_PROMPT) + ((this.config.responseFormat ?? 'json_schema') === 'json_schema' ? estimateTokens(JSON.stringify(requestSchema())) : 0);
    const budget = Math.floor((context - answer - fixed) * 0.9);
    if (budget < 500) throw new PipelineError('analysis_failed', `the analysis model's context of ${context} tokens leaves no room for a transcript`);
    return budget;
  }

  /** One analysis request (with its repair round-trip) for a transcript or a part of one; validated, not yet grounded. */
  private async analyzeText(transcript: Transcript, context: AnalysisContext, signal?: AbortSignal, part?: { index: number; count: number }): Promise<Analysis> {
    const messages: Msg[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: buildUserPrompt(transcript, context, part) },
    ];
    return this.completeChecked(messages, (c) => this.check(c), signal);
  }

  /** Asks, checks with `check`, asks once more with the problems, then gives up with analysis_failed. */
  private async completeChecked<T>(
    messages: Msg[],
    check: (content: string) => { ok: true; value: T } | { ok: false; kind: 'json' | 'schema'; errors: string[] },
    signal?: AbortSignal,
    responseSchema?: Obj,
  ): Promise<T> {
    let content = await this.complete(messages, signal, responseSchema);
    let result = check(content);
    if (result.ok) return result.value;
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
    content = await this.complete(messages, signal, responseSchema);
    result = check(content);
    if (result.ok) return result.value;
    throw new PipelineError(
      'analysis_failed',
      result.kind === 'json'
        ? 'Analysis model returned invalid JSON twice'
        : `Analysis model output failed schema validation twice (${result.errors.length} errors, first at ${result.errors[0]?.split(':')[0] ?? '/'})`,
    );
  }

  /**
   * The whole call from its parts' analyses: sections, points, action items and next steps joined
   * in order (their sourceSegmentIds are the call's own), and the overview (type, title, summaries,
   * outcome, bullets, sentiment, tone, tags) written by the model from the parts' overviews.
   */
  private async reduce(partials: Analysis[], parts: Transcript['segments'][], transcript: Transcript, context: AnalysisContext, budget: number, signal?: AbortSignal): Promise<Analysis> {
    const joined = joinPartAnalyses(partials);
    const overviews = partials.map((a, i) => ({
      part: i + 1,
      from: formatClock(parts[i][0]?.startSeconds ?? 0),
      to: formatClock(parts[i].at(-1)?.endSeconds ?? 0),
      callType: a.callType,
      suggestedTitle: a.suggestedTitle,
      oneLineSummary: a.oneLineSummary,
      executiveSummary: a.executiveSummary,
      conversationOutcome: a.conversationOutcome,
      executiveSummaryBullets: a.executiveSummaryBullets,
      sentiment: a.sentiment ? { overall: a.sentiment.overall, score: a.sentiment.score, reason: a.sentiment.reason } : undefined,
      tone: a.tone ? { overall: a.tone.overall, descriptors: a.tone.descriptors } : undefined,
      tags: a.tags,
      sectionTitles: (a.sections ?? []).map((x) => x.title),
    }));
    const header = buildUserPrompt({ ...transcript, segments: [] }, context).split('\nTranscript')[0];
    let body = JSON.stringify(overviews);
    // Very many parts: keep the one-line and executive summaries, which carry the story.
    if (estimateTokens(header + body) > budget) body = JSON.stringify(overviews.map(({ part, from, to, oneLineSummary, executiveSummary, conversationOutcome }) => ({ part, from, to, oneLineSummary, executiveSummary, conversationOutcome })));
    if (estimateTokens(header + body) > budget) body = JSON.stringify(overviews.map(({ part, from, to, oneLineSummary }) => ({ part, from, to, oneLineSummary })));
    const messages: Msg[] = [
      { role: 'system', content: REDUCE_PROMPT },
      { role: 'user', content: `${header}\n\nThe call was analysed in ${partials.length} consecutive parts. Their overviews, in order:\n${body}` },
    ];
    const full = requestSchema() as Obj & { properties: Obj };
    const schema = { type: 'object', properties: Object.fromEntries(OVERVIEW_FIELDS.map((k) => [k, full.properties[k]])), required: [...OVERVIEW_FIELDS] };
    return this.completeChecked(
      messages,
      (content) => {
        const parsed = parseModelJson(content);
        if (!parsed.ok || !isObj(parsed.value)) return { ok: false, kind: 'json', errors: ['/: not a JSON object'] };
        const overview = Object.fromEntries(OVERVIEW_FIELDS.filter((k) => k in (parsed.value as Obj)).map((k) => [k, (parsed.value as Obj)[k]]));
        const v = validateAnalysis(tidy({ ...structuredClone(joined), ...overview }));
        return v.ok ? v : { ok: false, kind: 'schema', errors: v.errors };
      },
      signal,
      schema,
    );
  }

  private check(content: string): { ok: true; value: Analysis } | { ok: false; kind: 'json' | 'schema'; errors: string[] } {
    const parsed = parseModelJson(content);
    if (!parsed.ok || !isObj(parsed.value)) return { ok: false, kind: 'json', errors: ['/: not a JSON object'] };
    const v = validateAnalysis(tidy(parsed.value));
    return v.ok ? v : { ok: false, kind: 'schema', errors: v.errors };
  }

  private body(messages: Msg[], responseSchema?: Obj): Obj {
    const body: Obj = { model: this.config.model, messages, temperature: this.config.temperature ?? 0.2, stream: false };
    if (this.config.maxTokens) body.max_tokens = this.config.maxTokens;
    const fmt = this.config.responseFormat ?? 'json_schema';
    if (fmt === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: responseSchema ? 'call_overview' : 'call_analysis', strict: false, schema: responseSchema ?? requestSchema() } };
    else if (fmt === 'json_object') body.response_format = { type: 'json_object' };
    return body;
  }

  /** One chat-completions request; returns the assistant message content. */
  private async complete(messages: Msg[], signal?: AbortSignal, responseSchema?: Obj): Promise<string> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const started = Date.now();

    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(this.body(messages, responseSchema)), signal: combined });
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

const OVERVIEW_FIELDS = ['callType', 'suggestedTitle', 'oneLineSummary', 'executiveSummary', 'conversationOutcome', 'executiveSummaryBullets', 'sentiment', 'tone', 'tags'] as const;

const REDUCE_PROMPT = [
  'A phone call between the app user (role USER) and another party (role CONTACT) was too long for one request and was analysed in consecutive parts.',
  'From the overviews of the parts, write the overview of the WHOLE call as ONE JSON object with exactly these fields (no prose, no markdown), following the given JSON schema:',
  `- callType: one of ${CALL_TYPES.join(', ')}. suggestedTitle: a short title. oneLineSummary: one sentence. executiveSummary: 2 to 4 sentences covering the whole call, beginning to end. conversationOutcome: what was decided or resolved by the end.`,
  '- executiveSummaryBullets: 3 to 6 entries {header, startTimestamp ("MM:SS", "HH:MM:SS" beyond one hour, taken from the parts), paragraphs (1-2 short strings)} spread over the whole call.',
  '- sentiment: {overall, score, reason, userSentiment, contactSentiment, progression (2 to 4 {phase (opening|middle|closing|followup), overall, note, sourceSegmentIds: []}), emotionalSignals}. tone: {overall, descriptors (1 to 4), formality, energy, pace, notes, byParty}. tags: short lower-case tags.',
  'Use only what the parts say. Write in the language of the parts.',
].join('\n');

/** Consecutive runs of segments whose prompts each fit `budget` tokens. A single segment over the budget is a part of its own (and likely fails upstream, clearly). */
export function splitTranscript(transcript: Transcript, context: AnalysisContext, budget: number): Transcript['segments'][] {
  const fixed = estimateTokens(buildUserPrompt({ ...transcript, segments: [] }, context, { index: 0, count: 99 })) + 60;
  const parts: Transcript['segments'][] = [];
  let current: Transcript['segments'] = [];
  let used = fixed;
  for (const seg of transcript.segments) {
    const cost = estimateTokens(`${seg.id} [${formatClock(seg.startSeconds)} - ${formatClock(seg.endSeconds)}] ${seg.speakerDisplayName} (${seg.role}): ${seg.text}\n`);
    if (current.length && used + cost > budget) {
      parts.push(current);
      current = [];
      used = fixed;
    }
    current.push(seg);
    used += cost;
  }
  if (current.length) parts.push(current);
  return parts;
}

const sameText = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.trim().toLowerCase() === b.trim().toLowerCase();

/** The lists of the parts' analyses joined in call order; section ids renumbered; an action item two parts both report kept once. */
export function joinPartAnalyses(partials: Analysis[]): Analysis {
  const out: Obj = { schemaVersion: ANALYSIS_SCHEMA_VERSION };
  const sections = partials.flatMap((a) => a.sections ?? []).map((sec, i) => ({ ...sec, id: `sec_${String(i + 1).padStart(3, '0')}` }));
  out.sections = sections;
  out.keyDiscussionPoints = partials.flatMap((a) => a.keyDiscussionPoints ?? []);
  const actions: NonNullable<Analysis['actionItems']> = [];
  for (const item of partials.flatMap((a) => a.actionItems ?? [])) {
    const twin = actions.find((x) => sameText(x.title, item.title) && x.intent === item.intent);
    if (twin) twin.sourceSegmentIds = [...new Set([...(twin.sourceSegmentIds ?? []), ...(item.sourceSegmentIds ?? [])])];
    else actions.push({ ...item });
  }
  out.actionItems = actions;
  out.nextSteps = partials.flatMap((a) => a.nextSteps ?? []);
  out.qualityWarnings = [...new Set(partials.flatMap((a) => a.qualityWarnings ?? []))];
  for (const key of ['importantDates', 'decisions', 'commitments', 'openQuestions', 'risks', 'opportunities', 'peopleMentioned', 'numbersAndAmounts'] as const) {
    const lists = partials.map((a) => a[key]).filter(Array.isArray) as unknown[][];
    if (lists.length) out[key] = lists.flat();
  }
  return out as Analysis;
}
