// Analyze: the transcript analysed and validated. The result is kept in the stage's output and
// stored with the call by `complete`, in one transaction with the call's completion.
import type { Analysis } from '../../domain/analysis.js';
import { analysisContextOf } from '../../domain/call-results.js';
import { findCall } from '../../domain/calls.js';
import { validateAnalysis } from '../analysis/validate.js';
import { PipelineError } from '../types.js';
import { defineStage } from './stage.js';
import { resolve } from './resolve.js';

export const analyze = defineStage({
  name: 'analyze',
  step: null, // its COMPLETED event is written with the completion (complete.ts)
  status: 'ANALYZING',
  progress: 'ANALYZE',
  holds: ['analyzed'],
  async run(ctx) {
    const { db, call, deps } = ctx;
    const transcript = ctx.output(resolve);
    const fresh = (await findCall(db, call.userId, call.id)) ?? call;
    // Progress of an analysis in parts, written in order and finished before the result is stored.
    let reports = Promise.resolve();
    const onProgress = (p: { done: number; total: number }) => {
      const percent = Math.floor((100 * p.done) / Math.max(1, p.total));
      reports = reports
        .then(async () => {
          await ctx.progress(percent);
          await ctx.event('ANALYZE', 'PROGRESS', { percent, parts: p.total - 1 });
        })
        .catch(() => undefined);
    };
    const analysis = await ctx.time('analyze', async () => {
      try {
        return await deps.pipeline.analyzer.analyze(transcript, analysisContextOf(fresh, ctx.user), ctx.job.signal, onProgress);
      } finally {
        await reports;
      }
    });
    const checked = validateAnalysis(analysis);
    if (!checked.ok) throw new PipelineError('analysis_failed', `analysis failed validation: ${checked.errors.slice(0, 3).join('; ')}`);
    const output: { analysis: Analysis; provider: string; ms: number | undefined } = { analysis: checked.value, provider: deps.pipeline.analyzer.provider, ms: ctx.timings.analyze };
    return { output };
  },
  async reuse(ctx, output) {
    if (output.ms !== undefined) ctx.timings.analyze = output.ms;
  },
});
