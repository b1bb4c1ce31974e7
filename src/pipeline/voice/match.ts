// Matching a user's voice profile against the diarized speakers of a call.
import type { DecodedAudio, SpeakerEmbedder } from '../types.js';
import { spanSquareSums, type PcmSource } from '../audio/pcm.js';
import { EmbeddingError, normalizeSpans } from './embedder.js';

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

/** A cohort of real voices to normalise scores against (the embedder's `VoiceModel`). */
export interface ScoreNormalization {
  cohort: readonly (readonly number[])[];
  /** Adaptive S-norm: only the cohort voices closest to the embedding set its statistics. */
  cohortTopK: number;
}

function cohortStats(v: Float32Array, norm: ScoreNormalization): { mean: number; sd: number } {
  const sims = norm.cohort.map((c) => cosine(v, Float32Array.from(c))).sort((a, b) => b - a).slice(0, norm.cohortTopK);
  const mean = sims.reduce((a, x) => a + x, 0) / sims.length;
  const sd = Math.sqrt(sims.reduce((a, x) => a + (x - mean) ** 2, 0) / sims.length);
  return { mean, sd: Math.max(sd, 1e-3) };
}

/**
 * Adaptive symmetric score normalisation (S-norm): each cosine is expressed in standard deviations
 * above how similar the profile, and the speaker, are to the real voices of the cohort that
 * resemble them most, averaged over both sides. A voice that is close to everybody (a common
 * timbre, a flat microphone) no longer scores high against a profile just for that.
 */
export function normalizedScores(profile: Float32Array, speakerEmbeddings: Record<string, Float32Array>, norm: ScoreNormalization): Record<string, number> {
  const p = cohortStats(profile, norm);
  const out: Record<string, number> = {};
  for (const [speaker, emb] of Object.entries(speakerEmbeddings)) {
    const s = cosine(profile, emb);
    const t = cohortStats(emb, norm);
    out[speaker] = 0.5 * ((s - p.mean) / p.sd + (s - t.mean) / t.sd);
  }
  return out;
}

/**
 * The decision on normalised scores, and each speaker's score mapped to [0,1] for the API. The
 * mapping is linear around the fitted threshold: `fit.threshold` lands on the default threshold
 * (DEFAULT_VOICE_MATCH_THRESHOLD) and `fit.margin` spans the default margin, so a configured
 * `threshold01` (VOICE_MATCH_THRESHOLD) moves the decision as it would on [0,1] scores, and a
 * speaker is MATCHED only with a [0,1] score at or above `threshold01`.
 */
export function normalizedMatch(normalized: Record<string, number>, fit: { threshold: number; margin: number }, threshold01: number = DEFAULT_VOICE_MATCH_THRESHOLD): { match: VoiceMatch; scores: Record<string, number> } {
  const slope = DEFAULT_VOICE_MATCH_MARGIN / fit.margin;
  const scores: Record<string, number> = {};
  for (const [speaker, z] of Object.entries(normalized)) scores[speaker] = Math.min(1, Math.max(0, DEFAULT_VOICE_MATCH_THRESHOLD + (z - fit.threshold) * slope));
  const threshold = fit.threshold + (threshold01 - DEFAULT_VOICE_MATCH_THRESHOLD) / slope;
  return { match: matchUserVoice(normalized, threshold, fit.margin), scores };
}

/**
 * The fused decision (FusedStatsEmbedder): each vector holds the fitted embedding (its first
 * `fusion.fittedDim` values) and the statistics embedding after it. Only parties whose statistics
 * [0,1] cosine score reaches `fusion.gate` are candidates; the fitted decision (normalizedMatch:
 * threshold, and margin over the runner-up) is taken among them, so a party under the gate is
 * neither named nor a rival. Reported scores are the fitted ones, except that a party under the
 * gate reports its statistics score (under the gate, so under every sensible threshold): a score at
 * or above the threshold always means both embedders agree, and the decision is the one the
 * reported scores show.
 *
 * Why the gate comes first rather than only vetoing the fitted decision's choice: on telephone
 * audio the fitted model can score a party the statistics embedder clearly rejects (synthetic
 * profile kal16 against rms, [0,1] statistics score 0.54-0.72) as high as, or higher than, the
 * owner; as a rival that party hid the owner (8 of 72 owners missed on the synthetic phone8k calls,
 * docs/bench/voice-fused.md at the time). On real voices it changes almost nothing: in the training
 * speakers' cross-validation, the same owner-absent naming, 181 more of 741480 owners named and one
 * more wrong party (bench/fit-voice.ts `--fused`, figures in its header).
 */
export function fusedMatch(
  profile: Float32Array,
  speakerEmbeddings: Record<string, Float32Array>,
  norm: ScoreNormalization & { threshold: number; margin: number },
  fusion: { fittedDim: number; gate: number },
  threshold01: number = DEFAULT_VOICE_MATCH_THRESHOLD,
): { match: VoiceMatch; scores: Record<string, number> } {
  const split = (v: Float32Array) => ({ fitted: v.subarray(0, fusion.fittedDim), plain: v.subarray(fusion.fittedDim) });
  const p = split(profile);
  const parts = Object.entries(speakerEmbeddings).map(([k, v]) => [k, split(v)] as const);
  const plain = scoreSpeakers(p.plain, Object.fromEntries(parts.map(([k, e]) => [k, e.plain])));
  const normalized = normalizedScores(p.fitted, Object.fromEntries(parts.map(([k, e]) => [k, e.fitted])), norm);
  const fitted = normalizedMatch(normalized, norm, threshold01);
  const candidates = Object.fromEntries(Object.entries(normalized).filter(([k]) => plain[k] >= fusion.gate));
  const scores: Record<string, number> = {};
  for (const [k, s] of Object.entries(fitted.scores)) scores[k] = plain[k] >= fusion.gate ? s : Math.min(s, plain[k]);
  return { match: normalizedMatch(candidates, norm, threshold01).match, scores };
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
 * Most seconds of one speaker's regions that are embedded. A statistics embedding settles within a
 * few minutes of speech, and reading all of a speaker's speech in a call of hours would put
 * hundreds of MB of samples in memory; longer speech is sampled evenly across the call.
 */
export const MAX_EMBED_SECONDS_PER_SPEAKER = 300;

/** Regions the embedder treats as one stretch are joined when this close (as the embedder does). */
const JOIN_GAP_SECONDS = 0.3;
/** Silence between stretches in the compacted signal: longer than the join gap, so none are joined. */
const COMPACT_GAP_SAMPLES = 16000;

/**
 * One embedding per diarized speaker, from that speaker's regions. In a true two-channel recording
 * each party is usually on one channel, so the speaker's regions are embedded from the channel
 * where they are loudest: the other party's cross-talk and line echo stay out of the vector.
 * Only the regions are read from the decoded call (see MAX_EMBED_SECONDS_PER_SPEAKER).
 * Speakers with too little speech are left out rather than failing the call.
 */
export async function embedCallSpeakers(
  embedder: SpeakerEmbedder,
  audio: DecodedAudio,
  speakerRegions: Record<string, Span[]>,
): Promise<Record<string, Float32Array>> {
  const out: Record<string, Float32Array> = {};
  for (const [speaker, all] of Object.entries(speakerRegions)) {
    const regions = capRegions(all, MAX_EMBED_SECONDS_PER_SPEAKER);
    if (regions.length === 0) continue;
    const source = audio.channels ? await loudestChannel(audio.channels, regions) : audio.mono;
    const { samples, spans } = await compactRegions(source, regions);
    try {
      out[speaker] = await embedder.embed(samples, audio.sampleRate, spans);
    } catch (err) {
      if (err instanceof EmbeddingError && err.reason === 'not_enough_speech') continue;
      throw err;
    }
  }
  return out;
}

/** At most `maxSeconds` of the regions, spread evenly over them (all of them when they are shorter). */
export function capRegions(regions: Span[], maxSeconds: number): Span[] {
  const valid = regions.filter((r) => r.end > r.start);
  const total = valid.reduce((a, r) => a + r.end - r.start, 0);
  if (total <= maxSeconds) return valid;
  const keep = maxSeconds / total;
  const out: Span[] = [];
  let before = 0;
  let taken = 0;
  for (const r of [...valid].sort((a, b) => a.start - b.start)) {
    const d = r.end - r.start;
    // Take a region when the running share taken falls behind the target share.
    if (taken < (before + d) * keep && taken + d <= maxSeconds) {
      out.push(r);
      taken += d;
    }
    before += d;
  }
  return out;
}

/**
 * The samples of the regions, joined as the embedder would join them, copied one after another
 * with silence between, and the regions' places in that copy: the embedder sees the same
 * stretches of audio without the rest of the call being read.
 */
async function compactRegions(source: PcmSource, regions: Span[]): Promise<{ samples: Float32Array; spans: Span[] }> {
  const sr = source.sampleRate;
  const duration = source.length / sr;
  const merged = normalizeSpans(regions, duration, JOIN_GAP_SECONDS);
  const joined = merged.map((m) => ({ from: Math.floor(m.start * sr), to: Math.min(source.length, Math.ceil(m.end * sr)) }));
  const total = joined.reduce((a, j) => a + (j.to - j.from) + COMPACT_GAP_SAMPLES, 0);
  const samples = new Float32Array(total);
  const spans: Span[] = [];
  let at = 0;
  for (const j of joined) {
    const part = await source.read(j.from, j.to - j.from);
    samples.set(part, at);
    // Half a sample inside, so the embedder's floor/ceil land on exactly these samples.
    spans.push({ start: (at + 0.5) / sr, end: (at + part.length - 0.5) / sr });
    at += part.length + COMPACT_GAP_SAMPLES;
  }
  return { samples, spans };
}

async function loudestChannel(channels: [PcmSource, PcmSource], regions: Span[]): Promise<PcmSource> {
  const sr = channels[0].sampleRate;
  const spans = regions.map((r) => {
    const from = Math.max(0, Math.floor(r.start * sr));
    return { from, to: Math.max(from, Math.min(channels[0].length, Math.ceil(r.end * sr))) };
  });
  const energy = [];
  for (const ch of channels) energy.push((await spanSquareSums(ch, spans)).reduce((a, e) => a + e, 0));
  return energy[1] > energy[0] ? channels[1] : channels[0];
}
