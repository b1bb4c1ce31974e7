// From an audio file to a named, speaker-attributed transcript: decode, recognise, diarize, match
// the user's voice, resolve names, normalise. No database: the call job and the benchmarks share it.
import { computePeaks } from './audio/peaks.js';
import { Value } from '@sinclair/typebox/value';
import type { Pipeline } from './index.js';
import { PipelineError, type DecodedAudio, type Diarization, type Recognition, type ResolutionContext, type StageProgress, type TimeRange } from './types.js';
import { checkWordTimes, type WordTimeCheck } from './word-times.js';
import { decodeAudio } from './audio/decode.js';
import { detectSpeech, speechUtterances } from './diarization/vad.js';
import { groupUtterances, resolveSpeakers } from './resolution/index.js';
import { buildTranscript, utterancesOf } from './normalize.js';
import { embedCallSpeakers, fusedMatch, matchUserVoice, normalizedMatch, normalizedScores, scoreSpeakers } from './voice/match.js';
import { Transcript } from '../domain/transcript.js';

// 2: pocketsphinx decodes the VAD's utterances; every recogniser's word times are checked (word-times.ts).
export const ALIGNMENT_VERSION = 'word-vad-2';

export interface SpeechInput {
  callId: string;
  audioPath: string;
  workDir: string;
  maxAudioSeconds: number;
  context: Omit<ResolutionContext, 'voice'>;
  /** The user's voice profile embedding, when the feature is on and a profile exists. */
  voiceProfile: Float32Array | null;
  /** Names the call may contain, for the recogniser's dictionary: the user's, the contact's, the organization, the user's contacts. */
  vocabulary?: string[];
  signal?: AbortSignal;
  /** Called after each stage, e.g. to move the call's status and record an event. */
  onStage?: (stage: 'decoded' | 'transcribed' | 'diarized', info: Record<string, unknown>) => Promise<void>;
  /** Called as recognition advances (recognisers that work in parts report after each part). */
  onProgress?: (stage: 'transcribe', progress: StageProgress) => Promise<void>;
}

export interface SpeechResult {
  transcript: Transcript;
  audio: DecodedAudio;
  recognition: Recognition;
  diarization: Diarization;
  timings: Record<string, number>;
  /** The VAD's speech regions of the call. */
  speechRegions: TimeRange[];
  /** What the word-time check did to the recogniser's words (`recognition` holds the checked words). */
  wordTimes: WordTimeCheck;
  /** Waveform peaks of the decoded call (audio/peaks.ts), for players that draw without decoding. */
  peaks: Uint8Array;
}

function checkAbort(signal?: AbortSignal) {
  if (signal?.aborted) throw new PipelineError('internal_error', 'processing interrupted by shutdown', true);
}

/** Decoding: the call's audio file to 16 kHz PCM in the work folder (stages/decode.ts and transcribeCall). */
export function decodeCallAudio(input: Pick<SpeechInput, 'audioPath' | 'workDir' | 'maxAudioSeconds' | 'signal'>): Promise<DecodedAudio> {
  return decodeAudio(input.audioPath, input.workDir, { timeoutMs: 10 * 60_000, maxSeconds: input.maxAudioSeconds, signal: input.signal });
}

export interface RecognitionResult {
  /** The recogniser's words after the word-time check. */
  recognition: Recognition;
  speechRegions: TimeRange[];
  wordTimes: WordTimeCheck;
}

/**
 * Recognition: the project's VAD cuts the call, the recogniser decodes it, and its word times are
 * checked (word-times.ts). `time` records the sub-steps' timings (vad, transcribe).
 */
export async function recognizeSpeech(
  pipeline: Pipeline,
  audio: DecodedAudio,
  input: Pick<SpeechInput, 'vocabulary' | 'signal' | 'onProgress'>,
  time: <T>(name: 'vad' | 'transcribe', fn: () => Promise<T>) => Promise<T>,
): Promise<RecognitionResult> {
  // The call cut as the project's VAD hears it: the embedded recogniser decodes these pieces with
  // known offsets, and every provider's word times are checked against them.
  const speechRegions = await time('vad', () => detectSpeech(audio.mono, audio.sampleRate));
  const utterances = await speechUtterances(audio.mono, audio.sampleRate, speechRegions);
  // Progress reports are written one after another and finish before the stage's own event.
  let reports = Promise.resolve();
  const onProgress = input.onProgress
    ? (p: StageProgress) => {
        reports = reports.then(() => input.onProgress!('transcribe', p)).catch(() => undefined);
      }
    : undefined;
  const rawRecognition = await time('transcribe', async () => {
    try {
      return await pipeline.transcriber.transcribe({
        wavPath: audio.wavPath,
        durationSeconds: audio.durationSeconds,
        utterances,
        signal: input.signal,
        onProgress,
        vocabulary: input.vocabulary,
      });
    } finally {
      await reports;
    }
  });
  // Whatever the recogniser reported, words reach speaker attribution in order, inside the audio
  // and in its speech (word-times.ts).
  const wordTimes = checkWordTimes(rawRecognition.words, speechRegions, audio.durationSeconds);
  const recognition: Recognition = { ...rawRecognition, words: wordTimes.words };
  return { recognition, speechRegions, wordTimes };
}

/** The TRANSCRIBE event's detail. */
export function recognitionSummary(r: RecognitionResult, ms: number | undefined): Record<string, unknown> {
  return {
    words: r.recognition.words.length,
    provider: r.recognition.provider,
    ms,
    ...(r.wordTimes.retimed + r.wordTimes.unverified > 0 ? { wordsRetimed: r.wordTimes.retimed, wordsUnverified: r.wordTimes.unverified } : {}),
  };
}

export function assertSpeechFound(recognition: Recognition): void {
  if (recognition.words.length === 0) throw new PipelineError('no_speech_detected', 'the recogniser found no speech');
}

/** Diarization: the recognised words attributed to speakers. */
export async function diarizeSpeech(pipeline: Pipeline, audio: DecodedAudio, recognition: Recognition, signal?: AbortSignal): Promise<Diarization> {
  try {
    return await pipeline.diarizer.diarize(audio, recognition.words, signal);
  } catch (err) {
    // An aborted job (shutdown, time limit) is not a diarization failure: the job runner decides.
    if (err instanceof PipelineError || signal?.aborted) throw err;
    throw new PipelineError('diarization_failed', (err as Error).message);
  }
}

/** Naming: the speakers resolved (strategy 2) and the transcript built and validated. */
export function nameSpeakers(args: {
  callId: string;
  context: SpeechInput['context'];
  voice: ResolutionContext['voice'];
  diarization: Diarization;
  recognition: Recognition;
  durationSeconds: number;
  qualityWarnings: WordTimeCheck['warnings'];
}): Transcript {
  const resolution = resolveSpeakers(groupUtterances(utterancesOf(args.diarization.words)), { ...args.context, voice: args.voice });
  const transcript = buildTranscript({
    callId: args.callId,
    words: args.diarization.words,
    diarization: args.diarization,
    recognition: args.recognition,
    resolution,
    durationSeconds: args.durationSeconds,
    createdAt: new Date().toISOString(),
    alignmentVersion: ALIGNMENT_VERSION,
    qualityWarnings: args.qualityWarnings,
  });
  if (!Value.Check(Transcript, transcript)) {
    const first = [...Value.Errors(Transcript, transcript)][0];
    throw new PipelineError('internal_error', `transcript failed validation at ${first?.path ?? '?'}`);
  }
  return transcript;
}

/** The whole of speech processing in one call, without a database (benchmarks, tests). */
export async function transcribeCall(pipeline: Pipeline, input: SpeechInput): Promise<SpeechResult> {
  const timings: Record<string, number> = {};
  const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      timings[name] = Math.round(performance.now() - t0);
    }
  };

  const audio = await time('decode', () => decodeCallAudio(input));
  await input.onStage?.('decoded', { durationSeconds: Math.round(audio.durationSeconds), channels: audio.channels ? 2 : 1, ms: timings.decode });
  checkAbort(input.signal);
  const peaks = await time('peaks', () => computePeaks(audio.mono, input.signal));

  const recognized = await recognizeSpeech(pipeline, audio, input, time);
  const { recognition, speechRegions, wordTimes } = recognized;
  await input.onStage?.('transcribed', recognitionSummary(recognized, timings.transcribe));
  assertSpeechFound(recognition);
  checkAbort(input.signal);

  const diarization = await time('diarize', () => diarizeSpeech(pipeline, audio, recognition));
  await input.onStage?.('diarized', { speakers: diarization.speakers.length, model: diarization.model, ms: timings.diarize });

  const voice = await time('voice', () => matchVoice(pipeline, input, audio, diarization));
  const transcript = nameSpeakers({ callId: input.callId, context: input.context, voice, diarization, recognition, durationSeconds: audio.durationSeconds, qualityWarnings: wordTimes.warnings });
  return { transcript, audio, recognition, diarization, timings, speechRegions, wordTimes, peaks };
}

/** `audio` may be null when no comparison is made (the feature off or no profile): a resumed job then does not decode again. */
export async function matchVoice(pipeline: Pipeline, input: Pick<SpeechInput, 'context' | 'voiceProfile'>, audio: DecodedAudio | null, diarization: Diarization): Promise<ResolutionContext['voice']> {
  const threshold = pipeline.voiceMatchThreshold;
  if (!input.context.voiceEmbeddingEnabled) return { status: 'DISABLED', scores: {}, threshold };
  if (!input.voiceProfile) return { status: 'NO_PROFILE', scores: {}, threshold };
  if (!audio) throw new Error('matchVoice: a voice comparison needs the decoded audio');
  try {
    const embeddings = await embedCallSpeakers(pipeline.embedder, audio, diarization.speakerRegions);
    const norm = pipeline.embedder.normalization;
    const fusion = pipeline.embedder.fusion;
    if (norm && fusion) {
      const { match, scores } = fusedMatch(input.voiceProfile, embeddings, norm, fusion, threshold);
      return { status: match.status, scores, threshold, matchedSpeaker: match.matchedSpeaker };
    }
    if (norm) {
      const { match, scores } = normalizedMatch(normalizedScores(input.voiceProfile, embeddings, norm), norm, threshold);
      return { status: match.status, scores, threshold, matchedSpeaker: match.matchedSpeaker };
    }
    const scores = scoreSpeakers(input.voiceProfile, embeddings);
    const match = matchUserVoice(scores, threshold);
    return { status: match.status, scores, threshold, matchedSpeaker: match.matchedSpeaker };
  } catch {
    // Voice matching is an aid: when it fails, naming falls back to the transcript text.
    return { status: 'ERROR', scores: {}, threshold };
  }
}
