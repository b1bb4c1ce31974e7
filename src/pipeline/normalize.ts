// Transcript normalisation (normalizationVersion 3): diarized words in, the Transcript resource
// (schemaVersion 2) out.
//
// Segments are cut where the speaker changes, at pauses longer than `pauseSeconds` (a new thought, and
// shorter lines to read), and in long monologues: past `softMaxSegmentSeconds` at the next sentence end
// or short pause, and unconditionally at `maxSegmentSeconds`. Recognisers give lower-case words
// without punctuation, so each segment is capitalised, "i" becomes "I" and a closing full stop (or a
// question mark for an evident short question) is added; punctuation a recogniser does supply is kept.
//
// alignmentConfidence of a segment comes from the mean recogniser confidence of its words:
// HIGH >= 0.85, MEDIUM >= 0.6, else LOW (recognisers without a measure report 1, so HIGH).
import {
  NORMALIZATION_VERSION,
  TRANSCRIPT_SCHEMA_VERSION,
  cleanTextOf,
  type Transcript,
  type TranscriptSegment,
  type TranscriptSpeaker,
} from '../domain/transcript.js';
import type { AttributedWord, Diarization, Recognition } from './types.js';
import {
  groupUtterances,
  type ResolvedSpeaker,
  type SpeakerResolutionResult,
  type SpeakerUtterances,
  type Utterance,
} from './resolution/index.js';

/** Used when the caller names no alignment step version. */
export const DEFAULT_ALIGNMENT_VERSION = '1';

export interface SegmentationOptions {
  /** A silence longer than this (seconds) between two words of one speaker starts a new segment. */
  pauseSeconds?: number;
  /** Past this length a segment ends at the next sentence end or pause of at least 0.5 s. */
  softMaxSegmentSeconds?: number;
  /** No segment runs longer than this. */
  maxSegmentSeconds?: number;
}

const DEFAULTS: Required<SegmentationOptions> = { pauseSeconds: 1.5, softMaxSegmentSeconds: 20, maxSegmentSeconds: 30 };
const SOFT_PAUSE_SECONDS = 0.5;

/** Consecutive words of one speaker that form one segment. */
export interface WordGroup {
  sourceSpeakerId: string;
  words: AttributedWord[];
}

// Recogniser markup that is not speech (pocketsphinx's <s>, <sil>, [NOISE], ++BREATH++).
const NON_SPEECH = /^(<[^>]*>|\[[^\]]*\]|\+\+.*\+\+)$/;
const PUNCTUATION_ONLY = /^[.,!?;:\u2026]+$/;

function cleanWord(raw: string): string {
  // Pocketsphinx marks pronunciation variants as "word(2)".
  return raw.trim().replace(/\(\d+\)$/, '');
}

function usableWords(words: AttributedWord[]): AttributedWord[] {
  return words
    .map((w) => ({ ...w, word: cleanWord(w.word) }))
    .filter((w) => w.word.length > 0 && !NON_SPEECH.test(w.word) && Number.isFinite(w.start) && Number.isFinite(w.end))
    .map((w) => ({ ...w, end: Math.max(w.end, w.start) }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Splits time-ordered words into segments (see the rules at the top of this file). */
export function groupWords(words: AttributedWord[], options: SegmentationOptions = {}): WordGroup[] {
  const opts = { ...DEFAULTS, ...options };
  const groups: WordGroup[] = [];
  let current: WordGroup | null = null;
  for (const w of usableWords(words)) {
    const prev = current?.words[current.words.length - 1];
    let split = !current || !prev || current.sourceSpeakerId !== w.speaker;
    if (!split && current && prev) {
      const gap = w.start - prev.end;
      const length = w.end - current.words[0].start;
      const sentenceEnded = /[.!?]$/.test(prev.word);
      split =
        gap > opts.pauseSeconds ||
        length > opts.maxSegmentSeconds ||
        (prev.end - current.words[0].start >= opts.softMaxSegmentSeconds && (sentenceEnded || gap >= SOFT_PAUSE_SECONDS));
    }
    // Punctuation the recogniser emits as its own token belongs to the word before it.
    if (split && PUNCTUATION_ONLY.test(w.word) && current) split = false;
    if (split || !current) {
      current = { sourceSpeakerId: w.speaker, words: [w] };
      groups.push(current);
    } else {
      current.words.push(w);
    }
  }
  return groups;
}

const QUESTION_START = /^(what|why|how|who|which|where|whose)\b|^(is|are|am|can|could|would|will|do|does|did|should|shall|have|has)\s+(i|you|we|it|that|this|he|she|they|there)\b/i;

/** Display text of a segment's words: joined, capitalised, with "I" and closing punctuation. */
export function formatSegmentText(words: string[]): string {
  let text = '';
  for (const raw of words) {
    const w = raw.trim();
    if (!w) continue;
    text += text === '' || PUNCTUATION_ONLY.test(w) ? w : ` ${w}`;
  }
  text = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\bi\b(?=$|[\s'.,!?;:])/g, 'I')
    // Capitalise the first letter and the first letter after a sentence end.
    .replace(/(^|[.!?]\s+)([a-z])/g, (_m, lead: string, ch: string) => lead + ch.toUpperCase());
  if (text === '' || PUNCTUATION_ONLY.test(text)) return '';
  if (/[,;:]$/.test(text)) text = text.slice(0, -1);
  if (!/[.!?\u2026]$/.test(text)) {
    const wordCount = text.split(' ').length;
    text += QUESTION_START.test(text) && wordCount <= 12 ? '?' : '.';
  }
  return text;
}

function alignmentConfidenceOf(words: AttributedWord[]): 'HIGH' | 'MEDIUM' | 'LOW' {
  const scored = words.filter((w) => !PUNCTUATION_ONLY.test(w.word));
  const list = scored.length > 0 ? scored : words;
  const mean = list.reduce((s, w) => s + Math.min(1, Math.max(0, Number.isFinite(w.confidence) ? w.confidence : 0)), 0) / Math.max(1, list.length);
  return mean >= 0.85 ? 'HIGH' : mean >= 0.6 ? 'MEDIUM' : 'LOW';
}

const round3 = (x: number) => Math.round(Math.max(0, x) * 1000) / 1000;

/** The utterances (one per future segment) in time order: what speaker naming reads. */
export function utterancesOf(words: AttributedWord[], options: SegmentationOptions = {}): Utterance[] {
  return groupWords(words, options)
    .map((g) => ({
      sourceSpeakerId: g.sourceSpeakerId,
      text: formatSegmentText(g.words.map((w) => w.word)),
      start: round3(g.words[0].start),
      end: round3(g.words[g.words.length - 1].end),
    }))
    .filter((u) => u.text !== '');
}

/** Speakers in order of first appearance with their utterances: the input of resolveSpeakers. */
export function speakerUtterancesOf(words: AttributedWord[], options: SegmentationOptions = {}): SpeakerUtterances[] {
  return groupUtterances(utterancesOf(words, options));
}

/** The same input rebuilt from a stored transcript, for naming again (e.g. after a voice profile is added). */
export function speakerUtterancesOfTranscript(transcript: Transcript): SpeakerUtterances[] {
  return groupUtterances(
    transcript.segments.map((s) => ({ sourceSpeakerId: s.sourceSpeakerId, text: s.text, start: s.startSeconds, end: s.endSeconds })),
  );
}

export interface BuildTranscriptInput {
  callId: string;
  /** Words attributed to source speakers (Diarization.words). */
  words: AttributedWord[];
  diarization: Pick<Diarization, 'provider' | 'model'>;
  recognition: Pick<Recognition, 'provider' | 'model' | 'language'>;
  resolution: SpeakerResolutionResult;
  durationSeconds: number;
  createdAt: string | Date;
  alignmentVersion?: string;
  segmentation?: SegmentationOptions;
  /** Problems found on the way (e.g. by the word-time check), reported as the transcript's qualityWarnings. */
  qualityWarnings?: string[];
}

function fallbackSpeaker(sourceSpeakerId: string, n: number): ResolvedSpeaker {
  return {
    sourceSpeakerId,
    role: 'UNKNOWN',
    displayName: `Speaker ${n}`,
    label: `Speaker ${n}`,
    labelSource: 'DIARIZATION',
    confidence: 'LOW',
    voiceMatchScore: null,
    voiceProfileMatched: null,
  };
}

function toTranscriptSpeaker(r: ResolvedSpeaker, speakerId: string): TranscriptSpeaker {
  return {
    speakerId,
    sourceSpeakerId: r.sourceSpeakerId,
    label: r.label,
    displayName: r.displayName,
    role: r.role,
    confidence: r.confidence,
    labelSource: r.labelSource,
    voiceMatchScore: r.voiceMatchScore === null ? null : Math.min(1, Math.max(0, r.voiceMatchScore)),
    voiceProfileMatched: r.voiceProfileMatched,
  };
}

/** Builds the Transcript resource (schemaVersion 2) from diarized words and a speaker resolution. */
export function buildTranscript(input: BuildTranscriptInput): Transcript {
  const groups = groupWords(input.words, input.segmentation);
  const resolvedById = new Map(input.resolution.speakers.map((s) => [s.sourceSpeakerId, s]));

  // spk_<n> in order of first appearance of the source speaker's words.
  const speakers: TranscriptSpeaker[] = [];
  const bySource = new Map<string, TranscriptSpeaker>();
  const segments: TranscriptSegment[] = [];
  for (const g of groups) {
    const text = formatSegmentText(g.words.map((w) => w.word));
    if (text === '') continue;
    let speaker = bySource.get(g.sourceSpeakerId);
    if (!speaker) {
      const n = speakers.length + 1;
      speaker = toTranscriptSpeaker(resolvedById.get(g.sourceSpeakerId) ?? fallbackSpeaker(g.sourceSpeakerId, n), `spk_${n}`);
      speakers.push(speaker);
      bySource.set(g.sourceSpeakerId, speaker);
    }
    const start = round3(g.words[0].start);
    segments.push({
      id: `seg_${String(segments.length + 1).padStart(4, '0')}`,
      speaker: speaker.speakerId,
      speakerLabel: speaker.label,
      speakerDisplayName: speaker.displayName,
      speakerId: speaker.speakerId,
      sourceSpeakerId: g.sourceSpeakerId,
      role: speaker.role,
      startSeconds: start,
      endSeconds: Math.max(start, round3(g.words[g.words.length - 1].end)),
      text,
      alignmentConfidence: alignmentConfidenceOf(g.words),
    });
  }

  const lastEnd = segments.length > 0 ? segments[segments.length - 1].endSeconds : 0;
  const duration = Number.isFinite(input.durationSeconds) && input.durationSeconds >= 0 ? input.durationSeconds : lastEnd;
  const createdAt = input.createdAt instanceof Date ? input.createdAt.toISOString() : input.createdAt;

  return {
    schemaVersion: TRANSCRIPT_SCHEMA_VERSION,
    callId: input.callId,
    language: input.recognition.language,
    durationSeconds: Math.round(duration),
    cleanText: cleanTextOf(segments),
    speakers,
    segments,
    speakerResolution: { ...input.resolution.speakerResolution, warnings: [...input.resolution.speakerResolution.warnings] },
    pipeline: {
      transcriptionProvider: input.recognition.provider,
      transcriptionModel: input.recognition.model,
      diarizationProvider: input.diarization.provider,
      diarizationModel: input.diarization.model,
      alignmentVersion: input.alignmentVersion ?? DEFAULT_ALIGNMENT_VERSION,
      normalizationVersion: NORMALIZATION_VERSION,
      status: 'COMPLETED',
    },
    createdAt,
    qualityWarnings: [...new Set(input.qualityWarnings ?? [])],
  };
}

/**
 * A copy of `transcript` with a new speaker resolution applied (names, roles, labels of speakers and
 * segments, cleanText, speakerResolution); segment boundaries and text are kept. Speakers the
 * resolution does not mention, and speakers a user corrected (labelSource MANUAL), keep their
 * current values.
 */
export function applyResolution(transcript: Transcript, resolution: SpeakerResolutionResult): Transcript {
  const resolvedById = new Map(resolution.speakers.map((s) => [s.sourceSpeakerId, s]));
  const speakers = transcript.speakers.map((s) => {
    const r = resolvedById.get(s.sourceSpeakerId);
    // A user's correction (MANUAL) outranks any automatic resolution.
    return r && s.labelSource !== 'MANUAL' ? toTranscriptSpeaker(r, s.speakerId) : { ...s };
  });
  const bySpeakerId = new Map(speakers.map((s) => [s.speakerId, s]));
  const segments = transcript.segments.map((seg) => {
    const s = bySpeakerId.get(seg.speakerId);
    return s ? { ...seg, speakerLabel: s.label, speakerDisplayName: s.displayName, role: s.role } : { ...seg };
  });
  return {
    ...transcript,
    speakers,
    segments,
    cleanText: cleanTextOf(segments),
    speakerResolution: { ...resolution.speakerResolution, warnings: [...resolution.speakerResolution.warnings] },
  };
}
