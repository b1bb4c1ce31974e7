// Complete: the analysis stored, the call COMPLETED, its minutes billed and the webhook queued, in
// one transaction (AI action items are merged there, keeping the user's edits).
import { storeAnalysis } from '../../domain/call-results.js';
import { enqueueCallEvent } from '../../domain/webhooks.js';
import { recordEvent } from '../../domain/calls.js';
import { billCallMinutes } from '../../domain/billing.js';
import { computeLimits, isFlagEnabled, type UsageLimits } from '../../domain/usage.js';
import { dropCallStageOutputs } from '../../store/repos/call-stages.js';
import { completeCall, lockCallRevision } from '../../store/repos/calls.js';
import { CallGone, defineStage } from './stage.js';
import { decode } from './decode.js';
import { analyze } from './analyze.js';

export const complete = defineStage({
  name: 'complete',
  job: 'analysis',
  step: 'PIPELINE',
  status: 'ANALYZING',
  progress: 'ANALYZE',
  holds: ['committing'],
  holdBeforeCommit: true,
  async run(ctx) {
    const { db, deps, call } = ctx;
    const durationSeconds = Math.round(ctx.output(decode).durationSeconds);
    // The user's limits before this call counted (null when billing is off): the minutes beyond
    // the allowance come off the top-up balance.
    const limitsBefore: UsageLimits | null = (await isFlagEnabled(db, 'billing_enabled')) ? await computeLimits(db, deps.config, call.userId, { excludeCallId: call.id }) : null;
    return { output: { durationSeconds, limitsBefore }, event: { totalMs: ctx.totalMs(), timings: ctx.timings, audioSeconds: durationSeconds } };
  },
  async save(ctx, { durationSeconds, limitsBefore }, trx) {
    const { call, deps } = ctx;
    const { analysis, provider, ms } = ctx.output(analyze);
    const locked = await lockCallRevision(trx, call.userId, call.id);
    if (!locked || locked.status === 'COMPLETED' || locked.status === 'FAILED') throw new CallGone();
    await storeAnalysis(trx, call.userId, call.id, analysis);
    await completeCall(trx, call.userId, call.id, durationSeconds);
    await billCallMinutes(trx, call.userId, call.id, durationSeconds, limitsBefore);
    await recordEvent(trx, call.userId, call.id, 'ANALYZE', 'COMPLETED', { provider, actionItems: analysis.actionItems?.length ?? 0, ms });
    await enqueueCallEvent(trx, deps.queue, call.userId, { id: call.id, status: 'COMPLETED', errorReason: null });
    // The transcript and analysis artifacts hold the result; the intermediate outputs can go.
    await dropCallStageOutputs(trx, call.userId, call.id);
  },
});
