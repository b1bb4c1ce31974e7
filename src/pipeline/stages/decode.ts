// Decode: the stored audio to PCM in the job's work folder (ctx.audio()), its length on the call,
// the job's time limit fitted to it, and the waveform peaks stored for the player.
import { Readable } from 'node:stream';
import { setCallDuration } from '../../store/repos/calls.js';
import { computePeaks } from '../audio/peaks.js';
import { waveformKey } from '../../store/blobs.js';
import { defineStage } from './stage.js';

export interface Decoded {
  durationSeconds: number;
  channels: 1 | 2;
}

export const decode = defineStage({
  name: 'decode',
  job: 'call',
  step: 'DECODE',
  status: 'PROCESSING',
  progress: 'DECODE',
  holds: ['decoded'],
  async run(ctx) {
    const audio = await ctx.audio();
    const decoded: Decoded = { durationSeconds: audio.durationSeconds, channels: audio.channels ? 2 : 1 };
    await ctx.fitTimeLimit(audio.durationSeconds);
    ctx.checkAbort();
    const peaks = await ctx.time('peaks', () => computePeaks(audio.mono, ctx.job.signal));
    await ctx.deps.blobs.put(waveformKey(ctx.call.userId, ctx.call.id), Readable.from([Buffer.from(peaks)]));
    return { output: decoded, event: { durationSeconds: Math.round(decoded.durationSeconds), channels: decoded.channels, ms: ctx.timings.decode } };
  },
  async save(ctx, decoded, trx) {
    await setCallDuration(trx, ctx.call.userId, ctx.call.id, Math.round(decoded.durationSeconds));
  },
  async reuse(ctx, decoded) {
    await ctx.fitTimeLimit(decoded.durationSeconds);
  },
});
