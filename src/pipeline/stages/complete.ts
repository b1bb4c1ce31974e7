// Complete: the analysis stored, the call COMPLETED, its minutes billed and the webhook queued, in
// one transaction (AI action items are merged there, keeping the user's edits).
import { sql } from 'kysely';
import { storeAnalysis } from '../../domain/call-results.js';
import { enqueueCallEvent } from '../../domain/webhooks.js';
import { recordEvent } from '../../domain/calls.js';
import { computeLimits, isFlagEnabled, minutesBeyondAllowance } from '../../domain/usage.js';
import { dropCallStageOutputs } from '../../store/repos/call-stages.js';
import { CallGone, defineStage } from './stage.js';
import { decode } from './decode.js';
import { analyze } from './analyze.js';

export const complete = defineStage({
  name: 'complete',
  step: 'PIPELINE',
  status: 'ANALYZING',
  progress: 'ANALYZE',
  holds: ['committing'],
  holdBeforeCommit: true,
  async run(ctx) {
    const { db, deps, call } = ctx;
    const durationSeconds = Math.round(ctx.output(decode).durationSeconds);
    const billing = await isFlagEnabled(db, 'billing_enabled');
    const limitsBefore = billing ? await computeLimits(db, deps.config, call.userId, { excludeCallId: call.id }) : null;
    const extraMinutes = limitsBefore ? minutesBeyondAllowance(limitsBefore, Math.ceil(durationSeconds / 60)) : 0;
    return { output: { durationSeconds, extraMinutes }, event: { totalMs: Date.now() - ctx.startedAt, timings: ctx.timings, audioSeconds: durationSeconds } };
  },
  async save(ctx, { durationSeconds, extraMinutes }, trx) {
    const { call, deps } = ctx;
    const { analysis, provider, ms } = ctx.output(analyze);
    const locked = await trx.selectFrom('calls').select('status').where('id', '=', call.id).where('userId', '=', call.userId).forUpdate().executeTakeFirst();
    if (!locked || locked.status === 'COMPLETED' || locked.status === 'FAILED') throw new CallGone();
    await storeAnalysis(trx, call.userId, call.id, analysis);
    await trx.updateTable('calls').set({ status: 'COMPLETED', errorReason: null, durationSeconds, completedAt: sql`now()`, updatedAt: sql`now()` }).where('id', '=', call.id).execute();
    await trx.updateTable('usageLedger').set({ durationSeconds }).where('callId', '=', call.id).execute();
    if (extraMinutes > 0) {
      await trx.updateTable('users').set({ topupMinutesBalance: sql`greatest(0, topup_minutes_balance - ${extraMinutes})` }).where('id', '=', call.userId).execute();
    }
    await recordEvent(trx, call.userId, call.id, 'ANALYZE', 'COMPLETED', { provider, actionItems: analysis.actionItems?.length ?? 0, ms });
    await enqueueCallEvent(trx, deps.queue, call.userId, { id: call.id, status: 'COMPLETED', errorReason: null });
    // The transcript and analysis artifacts hold the result; the intermediate outputs can go.
    await dropCallStageOutputs(trx, call.userId, call.id);
  },
});
