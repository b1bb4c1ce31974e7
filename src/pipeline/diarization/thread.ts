// The worker-thread side of ThreadedDiarizer (./threaded.ts): reopens the decoded audio and runs
// the embedded diarizer, one call at a time.
import { serveThread } from '../thread-pool.js';
import type { DecodedAudio } from '../types.js';
import { createDiarizer } from './index.js';
import { reopen, type DiarizationRequest } from './threaded.js';

serveThread(async ({ options, audio, words }: DiarizationRequest) => {
  const { mono, channels, ...rest } = audio;
  const decoded: DecodedAudio = { ...rest, mono: await reopen(mono) };
  if (channels) decoded.channels = [await reopen(channels[0]), await reopen(channels[1])];
  return createDiarizer(options).diarize(decoded, words);
});
