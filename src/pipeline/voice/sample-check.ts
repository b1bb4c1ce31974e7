// Checks an enrolment sample before it becomes a voice profile: a profile made from a clipped,
// whispered or noisy recording scores low against the user's own calls and, worse, sits close to
// everybody. Each check names what is wrong so the user can record again; no check looks at what
// is said.
import { detectSpeech } from '../diarization/vad.js';

/** Gated speech below this cannot be summarised into a reliable profile (calls need only 1 s). */
export const MIN_ENROLMENT_SPEECH_SECONDS = 3;
/** Loud frames (95th percentile) below this level: the microphone was too far or muted. */
export const MIN_SPEECH_LEVEL_DBFS = -45;
/** Share of samples in runs of three or more at full scale above which the recording is clipped. */
export const MAX_CLIPPED_SHARE = 0.002;
/** Loud frames less than this far above the quiet ones (10th percentile): speech is buried in noise. */
export const MIN_SNR_DB = 15;

export type SampleProblem = 'not_enough_speech' | 'clipped' | 'too_quiet' | 'too_noisy';

export interface SampleCheck {
  problem: SampleProblem | null;
  /** Says what is wrong and what to do; no personal data. */
  message: string | null;
  speechSeconds: number;
  levelDbfs: number;
  snrDb: number;
  clippedShare: number;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return -Infinity;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round((sorted.length - 1) * q)))];
}

/** Amount of speech, level, clipping and noise of a mono sample (floats in [-1, 1]). */
export async function checkEnrolmentSample(samples: Float32Array, sampleRate: number): Promise<SampleCheck> {
  const speechSeconds = (await detectSpeech(samples, sampleRate)).reduce((a, r) => a + r.end - r.start, 0);
  const frame = Math.max(1, Math.round(0.02 * sampleRate));
  const frames = Math.floor(samples.length / frame);
  const db = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let s = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) s += samples[i] * samples[i];
    db[f] = 10 * Math.log10(s / frame + 1e-12);
  }
  db.sort();
  const levelDbfs = percentile(db, 0.95);
  const snrDb = levelDbfs - percentile(db, 0.1);

  let clipped = 0;
  let run = 0;
  for (let i = 0; i <= samples.length; i++) {
    if (i < samples.length && Math.abs(samples[i]) >= 0.99) run++;
    else {
      if (run >= 3) clipped += run;
      run = 0;
    }
  }
  const clippedShare = samples.length ? clipped / samples.length : 0;

  const result = { speechSeconds, levelDbfs, snrDb, clippedShare };
  if (clippedShare > MAX_CLIPPED_SHARE) {
    return { ...result, problem: 'clipped', message: `The voice sample is clipped (${(100 * clippedShare).toFixed(1)} % of it at full scale): record again with the microphone further away or the input level lower.` };
  }
  if (levelDbfs < MIN_SPEECH_LEVEL_DBFS) {
    return { ...result, problem: 'too_quiet', message: `The voice sample is too quiet (speech at ${levelDbfs.toFixed(0)} dBFS, at least ${MIN_SPEECH_LEVEL_DBFS} dBFS needed): record again closer to the microphone.` };
  }
  // After the level check: the detector finds no speech in a whisper, and saying "too quiet" helps more.
  if (speechSeconds < MIN_ENROLMENT_SPEECH_SECONDS) {
    return { ...result, problem: 'not_enough_speech', message: `The voice sample holds ${speechSeconds.toFixed(1)} s of speech, at least ${MIN_ENROLMENT_SPEECH_SECONDS} s are needed: read a few sentences without long pauses.` };
  }
  if (snrDb < MIN_SNR_DB) {
    return { ...result, problem: 'too_noisy', message: `The voice sample is too noisy (speech only ${snrDb.toFixed(0)} dB above the background, at least ${MIN_SNR_DB} dB needed): record again somewhere quieter, with pauses between sentences.` };
  }
  return { ...result, problem: null, message: null };
}
