// Diarize: the recognised words attributed to speakers (kept in the stage's output for retries).
import type { Diarization } from '../types.js';
import { diarizeSpeech } from '../speech.js';
import { defineStage } from './stage.js';
import { transcribe } from './transcribe.js';

export const diarize = defineStage({
  name: 'diarize',
  job: 'call',
  step: 'DIARIZE',
  status: 'TRANSCRIBING',
  progress: 'DIARIZE',
  holds: ['diarized'],
  async run(ctx) {
    const { recognition } = ctx.output(transcribe);
    const audio = await ctx.audio();
    const diarization: Diarization = await ctx.time('diarize', () => diarizeSpeech(ctx.deps.pipeline, audio, recognition, ctx.job.signal));
    return { output: diarization, event: { speakers: diarization.speakers.length, model: diarization.model, ms: ctx.timings.diarize } };
  },
});
