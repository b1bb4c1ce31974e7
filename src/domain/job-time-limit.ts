// How long the processing job of one call may run before the queue presumes its worker dead and
// hands the call to another worker. One fixed limit for every call cannot be right: a 3-hour
// recording takes about 50 minutes on one busy core, a 2-minute one well under a minute, and a
// limit long enough for the first would leave the second stranded for hours after a crash. So the
// limit follows the call's audio length:
//
//   limit = clamp(WORKER_JOB_SECONDS_PER_AUDIO_SECOND × audio seconds,
//                 floor   = WORKER_JOB_TIMEOUT_SECONDS,
//                 ceiling = max(floor, WORKER_JOB_SECONDS_PER_AUDIO_SECOND × MAX_AUDIO_SECONDS))
//
// At upload the length is not known yet (API processes never decode), so the job is enqueued with
// a limit for the most audio the file's size can hold; the worker lowers it to the limit of the
// measured length as soon as decoding has measured it.

export interface JobTimeLimitSettings {
  /** The floor: no job gets less (WORKER_JOB_TIMEOUT_SECONDS). */
  jobTimeoutSeconds: number;
  /** Seconds a job may run per second of audio (WORKER_JOB_SECONDS_PER_AUDIO_SECOND). */
  jobSecondsPerAudioSecond: number;
  /** Longer audio fails with audio_too_long, so no job needs more than this much audio's time. */
  maxAudioSeconds: number;
}

/**
 * The lowest bit rate any accepted format carries speech at (Opus in Ogg goes down to 6 kbit/s;
 * MP3, AAC and the WAV codecs ffmpeg reads do not go lower): a file of `bytes` holds at most
 * bytes × 8 / 6000 seconds of audio.
 */
export const MIN_AUDIO_BITS_PER_SECOND = 6000;

/** The most audio, in seconds, a file of this many bytes can hold. */
export function audioSecondsUpperBound(bytes: number): number {
  return Math.ceil((Math.max(0, bytes) * 8) / MIN_AUDIO_BITS_PER_SECOND);
}

/** The limit for any call: the one for the longest audio the service accepts. */
export function maxJobTimeLimitSeconds(s: JobTimeLimitSettings): number {
  return Math.max(s.jobTimeoutSeconds, Math.ceil(s.jobSecondsPerAudioSecond * s.maxAudioSeconds));
}

/** Seconds the job of a call with this much audio may run; `null` (length unknown): the ceiling. */
export function callJobTimeLimitSeconds(s: JobTimeLimitSettings, audioSeconds: number | null): number {
  const ceiling = maxJobTimeLimitSeconds(s);
  if (audioSeconds === null || !Number.isFinite(audioSeconds)) return ceiling;
  return Math.min(ceiling, Math.max(s.jobTimeoutSeconds, Math.ceil(s.jobSecondsPerAudioSecond * Math.max(0, audioSeconds))));
}
