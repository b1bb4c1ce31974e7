// Analyze: the transcript analysed and validated. The result is kept in the stage's output and
// stored with the call by `complete`, in one transaction with the call's completion.
//
// analyzeTranscript is the stage's core, the one analysis path of the service: the first analysis
// of a call (this stage, on ANALYSIS_QUEUE), the analysis of a corrected transcript (speaker
// corrections, src/pipeline/analyze-call.ts) and re-analysis on request (domain/reanalysis.ts)
// all run it.
import type { Analysis } from '../../domain/analysis.js';
import { analysisContextOf } from '../../domain/call-results.js';
import { findCall } from '../../domain/calls.js';
import type { Transcript } from '../../domain/transcript.js';
import type { Call, User } from '../../store/schema.js';
import { validateAnalysis } from '../analysis/validate.js';
import { PipelineError, type Analyzer } from '../types.js';
import { defineStage } from './stage.js';
import { resolve } from './resolve.js';

/**
 * The analysis of `transcript`, validated; a PipelineError otherwise (the analyzer's own, or
 * `analysis_failed` for a result that fails validation).
 */
export async function analyzeTranscript(
  analyzer: Analyzer,
  transcript: Transcript,
  call: Call,
  user: Pick<User, 'displayName'>,
  opts: { signal?: AbortSignal; onProgress?: (p: { done: number; total: number }) => void } = {},
): Promise<Analysis> {
  const analysis = await analyzer.analyze(transcript, analysisContextOf(call, user), opts.signal, opts.onProgress);
  const checked = validateAnalysis(analysis);
  if (!checked.ok) throw new PipelineError('analysis_failed', `analysis failed validation: ${checked.errors.slice(0, 3).join('; ')}`);
  return checked.value;
}

export const analyze = defineStage({
  name: 'analyze',
  job: 'analysis',
  step: 'ANALYZE', // its progress events; its COMPLETED event is written with the completion (complete.ts)
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
        return await analyzeTranscript(deps.pipeline.analyzer, transcript, fresh, ctx.user, { signal: ctx.job.signal, onProgress });
      } finally {
        await reports;
      }
    });
    const output: { analysis: Analysis; provider: string; ms: number | undefined } = { analysis, provider: deps.pipeline.analyzer.provider, ms: ctx.timings.analyze };
    // No `event`: the ANALYZE COMPLETED event is the completion's (complete.ts).
    return { output };
  },
});
