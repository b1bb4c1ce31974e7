// Matching a user's voice profile against the diarized speakers of a call.
import type { DecodedAudio, SpeakerEmbedder } from '../types.js';
import { EmbeddingError } from './embedder.js';

/**
 * Score at or above which the best speaker counts as the user. From `bench/voice.ts` on the
 * synthetic corpus (docs/bench/voice.md): genuine scores >= 0.919, impostor scores <= 0.749 on
 * every variant. Set above the midpoint because a false match names the wrong party as the user,
 * while a miss only falls back to text-based naming.
 */
export const DEFAULT_VOICE_MATCH_THRESHOLD = 0.85;

/**
 * How far the best speaker must score above the runner-up. The profile belongs to one person, so
 * when two speakers of a call score nearly alike the evidence cannot tell which is the user and
 * guessing would put the user's name on the wrong side of the conversation.
 */
export const DEFAULT_VOICE_MATCH_MARGIN = 0.05;

export interface VoiceMatch {
  status: 'MATCHED' | 'NO_MATCH';
  matchedSpeaker: string | null;
}

/** Cosine similarity of two equal-length vectors, 0 when either is all zeros. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`embedding dimensions differ (${a.length} vs ${b.length})`);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/** Similarity in [0,1] of a profile and each speaker: cosine similarity mapped linearly from [-1,1]. */
export function scoreSpeakers(profile: Float32Array, speakerEmbeddings: Record<string, Float32Array>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [speaker, emb] of Object.entries(speakerEmbeddings)) {
    const s = (1 + cosine(profile, emb)) / 2;
    out[speaker] = Math.min(1, Math.max(0, s));
  }
  return out;
}

/**
 * The speaker that is the user: the best-scoring speaker when its score reaches `threshold` and
 * beats the runner-up by at least `margin` (see DEFAULT_VOICE_MATCH_MARGIN); otherwise NO_MATCH.
 */
export function matchUserVoice(
  scores: Record<string, number>,
  threshold: number = DEFAULT_VOICE_MATCH_THRESHOLD,
  margin: number = DEFAULT_VOICE_MATCH_MARGIN,
): VoiceMatch {
  const ranked = Object.entries(scores)
    .filter(([, s]) => Number.isFinite(s))
    .sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0) return { status: 'NO_MATCH', matchedSpeaker: null };
  const [best, bestScore] = ranked[0];
  const second = ranked.length > 1 ? ranked[1][1] : -Infinity;
  if (bestScore >= threshold && bestScore - second >= margin) return { status: 'MATCHED', matchedSpeaker: best };
  return { status: 'NO_MATCH', matchedSpeaker: null };
}

type Span = { start: number; end: number };

/**
 * One embedding per diarized speaker, from that speaker's regions. In a true two-channel recording
 * each party is usually on one channel, so the speaker's regions are embedded from the channel
 * where they are loudest: the other party's cross-talk and line echo stay out of the vector.
 * Speakers with too little speech are left out rather than failing the call.
 */
export async function embedCallSpeakers(
  embedder: SpeakerEmbedder,
  audio: DecodedAudio,
  speakerRegions: Record<string, Span[]>,
): Promise<Record<string, Float32Array>> {
  const out: Record<string, Float32Array> = {};
  for (const [speaker, regions] of Object.entries(speakerRegions)) {
    if (regions.length === 0) continue;
    const source = audio.channels ? loudestChannel(audio.channels, regions, audio.sampleRate) : audio.mono;
    try {
      out[speaker] = await embedder.embed(source, audio.sampleRate, regions);
    } catch (err) {
      if (err instanceof EmbeddingError && err.reason === 'not_enough_speech') continue;
      throw err;
    }
  }
  return out;
}

function loudestChannel(channels: [Float32Array, Float32Array], regions: Span[], sampleRate: number): Float32Array {
  const energy = channels.map((ch) => {
    let e = 0;
    for (const r of regions) {
      const end = Math.min(ch.length, Math.ceil(r.end * sampleRate));
      for (let i = Math.max(0, Math.floor(r.start * sampleRate)); i < end; i++) e += ch[i] * ch[i];
    }
    return e;
  });
  return energy[1] > energy[0] ? channels[1] : channels[0];
}
