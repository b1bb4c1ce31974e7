// The small interfaces between pipeline stages. Each stage has an embedded offline default and,
// where it makes sense, an adapter for an outside provider; the job runner only sees these types.
import type { Analysis, AnalysisContext } from '../domain/analysis.js';
import type { Transcript, SpeakerRole } from '../domain/transcript.js';
import type { PcmSource } from './audio/pcm.js';

export type { PcmSource } from './audio/pcm.js';

export const PIPELINE_SAMPLE_RATE = 16000;

/**
 * Audio decoded by ffmpeg to 16 kHz PCM, kept in files of the job's work folder: the signals are
 * sources read window by window, so no stage holds a whole call in memory.
 */
export interface DecodedAudio {
  sampleRate: number; // always PIPELINE_SAMPLE_RATE
  /** Mono mix (the average of the channels, or the one channel that carries the audio). */
  mono: PcmSource;
  /** The separate channels of a true two-channel recording; absent for mono. */
  channels?: [PcmSource, PcmSource];
  durationSeconds: number;
  /** 16 kHz mono 16-bit WAV file of `mono`, for recognisers that read files. */
  wavPath: string;
}

export interface RecognizedWord {
  word: string;
  start: number; // seconds
  end: number; // seconds
  /** 0..1; the recogniser's own measure, 1 when it has none. */
  confidence: number;
}

export interface Recognition {
  words: RecognizedWord[];
  language: string;
  provider: string;
  model: string;
}

/** Progress of a long stage: seconds of the call's audio done so far out of its duration. */
export interface StageProgress {
  doneSeconds: number;
  totalSeconds: number;
}

/** A stretch of the call, in seconds from its start. */
export interface TimeRange {
  start: number;
  end: number;
}

export interface TranscriptionInput {
  wavPath: string;
  durationSeconds: number;
  /**
   * The pieces of speech the project's VAD found (padded, long ones cut), in time order. A recogniser
   * that decodes piece by piece uses them as given; absent, it finds them itself or decodes the file.
   */
  utterances?: TimeRange[];
  signal?: AbortSignal;
  /** Called as parts of the audio are recognised; recognisers that work in one piece may never call it. */
  onProgress?: (progress: StageProgress) => void;
  /** Names this call may contain (user, contact, organization, the user's contacts); a recogniser may use them. */
  vocabulary?: readonly string[];
}

/** Speech recognition: a WAV file in, words with times out. */
export interface Transcriber {
  readonly provider: string;
  readonly model: string;
  transcribe(input: TranscriptionInput): Promise<Recognition>;
}

/** A word with the diarization speaker it was attributed to (`S0`, `S1`, ...). */
export interface AttributedWord extends RecognizedWord {
  speaker: string;
}

export interface Diarization {
  provider: string;
  model: string;
  /** Source speaker ids in order of first appearance. */
  speakers: string[];
  words: AttributedWord[];
  /** Per source speaker, the sample ranges (seconds) attributed to it: input to voice embedding. */
  speakerRegions: Record<string, Array<{ start: number; end: number }>>;
}

/** Speaker separation: decoded audio and recognised words in, words attributed to speakers out. */
export interface Diarizer {
  readonly provider: string;
  readonly model: string;
  /** `signal` ends the work when the job is aborted (shutdown, time limit); diarizers that cannot stop ignore it. */
  diarize(audio: DecodedAudio, words: RecognizedWord[], signal?: AbortSignal): Promise<Diarization>;
  /** Ends the diarizer's worker threads (if it has any). */
  close?(): Promise<void>;
}

/** A fixed-length speaker vector from speech audio. */
export interface SpeakerEmbedder {
  readonly provider: string;
  /**
   * When set, raw cosines are not comparable across voices: scores are normalised against this
   * cohort and decided with this threshold and margin (normalised units; src/pipeline/voice/match.ts).
   */
  readonly normalization?: { cohort: readonly (readonly number[])[]; cohortTopK: number; threshold: number; margin: number };
  /**
   * When set (with `normalization`), each vector is two embeddings: the normalised one (first
   * `fittedDim` values) decides, and the plain cosine of the rest must reach `gate` (match.ts fusedMatch).
   */
  readonly fusion?: { fittedDim: number; gate: number };
  embed(samples: Float32Array, sampleRate: number, regions?: Array<{ start: number; end: number }>): Promise<Float32Array>;
  /** Ends the embedder's worker threads (if it has any). */
  close?(): Promise<void>;
}

/** Inputs to speaker naming (strategy 2), besides the diarized words. */
export interface ResolutionContext {
  userDisplayName: string | null;
  contactName: string | null;
  phoneNumber: string | null;
  direction: 'INCOMING' | 'OUTGOING' | null;
  voiceEmbeddingEnabled: boolean;
  /** Present when the user has a voice profile and matching ran. */
  voice?: {
    status: 'MATCHED' | 'NO_MATCH' | 'NO_PROFILE' | 'ERROR' | 'DISABLED';
    /** Score in [0,1] per source speaker id. */
    scores: Record<string, number>;
    threshold: number;
    /** The speaker the matcher chose (threshold and margin applied); set when status is MATCHED. */
    matchedSpeaker?: string | null;
  };
}

/** Analysis: a normalised transcript in, analysis schemaVersion 3 out. */
export interface Analyzer {
  readonly provider: string;
  readonly model: string;
  /** `onProgress` is called by analyzers that work in parts, after each part. */
  analyze(transcript: Transcript, context: AnalysisContext, signal?: AbortSignal, onProgress?: (p: { done: number; total: number }) => void): Promise<Analysis>;
  /** Releases what the analyzer holds (worker threads); called when the service stops. */
  close?(): Promise<void>;
}

/** A pipeline error with a stable reason stored as the call's errorReason. */
export class PipelineError extends Error {
  constructor(
    readonly reason: PipelineFailureReason,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'PipelineError';
  }
}

/** Stable `errorReason` values of a FAILED call (documented in the OpenAPI description). */
export type PipelineFailureReason =
  | 'audio_undecodable'
  | 'audio_too_long'
  | 'no_speech_detected'
  | 'transcription_failed'
  | 'transcription_provider_error'
  | 'diarization_failed'
  | 'analysis_failed'
  | 'analysis_provider_error'
  | 'audio_missing'
  | 'internal_error';

export type { SpeakerRole };
