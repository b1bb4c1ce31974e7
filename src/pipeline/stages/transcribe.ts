// Transcribe: the VAD's speech regions, the recogniser's words (the expensive step: kept in the
// stage's output so a retry never recognises the audio again), their times checked.
import { assertSpeechFound, recognitionSummary, recognizeSpeech, type RecognitionResult } from '../speech.js';
import { recentContactNames } from '../../store/repos/contacts.js';
import { defineStage } from './stage.js';

export type Recognized = Omit<RecognitionResult, 'wordTimes'> & { wordTimes: Omit<RecognitionResult['wordTimes'], 'words'> };

export const transcribe = defineStage({
  name: 'transcribe',
  job: 'call',
  step: 'TRANSCRIBE',
  status: 'TRANSCRIBING',
  progress: 'TRANSCRIBE',
  percentFromZero: true,
  holds: ['transcribed'],
  async run(ctx) {
    const { call, deps, db } = ctx;
    const audio = await ctx.audio();
    // Names the recogniser should be able to hear: this call's and the user's contacts'.
    const contacts = await recentContactNames(db, call.userId, 200);
    const vocabulary = [ctx.user.displayName, call.contactName, call.organization, ...contacts].filter((n): n is string => !!n);
    let lastPercent = -1;
    const recognized = await recognizeSpeech(
      deps.pipeline,
      audio,
      {
        vocabulary,
        signal: ctx.job.signal,
        onProgress: async (_stage, p) => {
          const percent = Math.floor((100 * p.doneSeconds) / Math.max(1e-9, p.totalSeconds));
          if (percent <= lastPercent) return;
          lastPercent = percent;
          await ctx.progress(percent);
          await ctx.event('TRANSCRIBE', 'PROGRESS', { percent, doneSeconds: Math.round(p.doneSeconds), totalSeconds: Math.round(p.totalSeconds) });
        },
      },
      (name, fn) => ctx.time(name, fn),
    );
    const event = recognitionSummary(recognized, ctx.timings.transcribe);
    if (recognized.recognition.words.length === 0) {
      await ctx.event('TRANSCRIBE', 'COMPLETED', event);
      assertSpeechFound(recognized.recognition);
    }
    const { words: _checkedWords, ...wordTimes } = recognized.wordTimes;
    return { output: { recognition: recognized.recognition, speechRegions: recognized.speechRegions, wordTimes } satisfies Recognized, event };
  },
  async reuse(ctx, recognized) {
    await ctx.event('TRANSCRIBE', 'REUSED', { words: recognized.recognition.words.length });
  },
});
