// Per-call stage state (migration 010): written by the stage runner (src/pipeline/stages/run.ts),
// read by progress (domain/calls.ts callProgress) and by tests. Every query takes the owner id.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../database.js';
import type { Database } from '../schema.js';

type Q = Db | Transaction<Database>;

export interface CallStageRow {
  stage: string;
  attempt: number;
  outcome: 'RUNNING' | 'COMPLETED' | 'FAILED';
  startedAt: Date;
  finishedAt: Date | null;
  updatedAt: Date;
  progress: number | null;
  detail: Record<string, unknown> | null;
  output: unknown;
}

/** The call's stage rows (any order). */
export async function listCallStages(db: Q, userId: string, callId: string): Promise<CallStageRow[]> {
  const rows = await db
    .selectFrom('callStages')
    .select(['stage', 'attempt', 'outcome', 'startedAt', 'finishedAt', 'updatedAt', 'progress', 'detail', 'output'])
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .execute();
  return rows as CallStageRow[];
}

/** A stage starts (again): its attempt counts up and any earlier outcome is cleared. */
export async function startCallStage(db: Q, userId: string, callId: string, stage: string): Promise<void> {
  await db
    .insertInto('callStages')
    .values({ callId, userId, stage, outcome: 'RUNNING' })
    .onConflict((oc) =>
      oc.columns(['callId', 'stage']).doUpdateSet({
        attempt: sql`call_stages.attempt + 1`,
        outcome: 'RUNNING',
        startedAt: sql`now()`,
        finishedAt: null,
        updatedAt: sql`now()`,
        progress: null,
        detail: null,
        output: null,
      }),
    )
    .execute();
}

/** The running stage's share done (0..100). */
export async function reportCallStageProgress(db: Q, userId: string, callId: string, stage: string, percent: number): Promise<void> {
  await db
    .updateTable('callStages')
    .set({ progress: Math.max(0, Math.min(100, Math.round(percent))), updatedAt: sql`now()` })
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .where('stage', '=', stage)
    .where('outcome', '=', 'RUNNING')
    .execute();
}

/** A stage finished; `output` (JSON) is what a retry reads instead of running it again. */
export async function finishCallStage(db: Q, userId: string, callId: string, stage: string, output: unknown, detail: Record<string, unknown> | null): Promise<void> {
  await db
    .updateTable('callStages')
    .set({
      outcome: 'COMPLETED',
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
      output: output === undefined ? null : JSON.stringify(output),
      detail: detail === null ? null : JSON.stringify(detail),
    })
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .where('stage', '=', stage)
    .execute();
}

/** A stage failed (the job may be retried: the stage then starts again). */
export async function failCallStage(db: Q, userId: string, callId: string, stage: string, detail: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('callStages')
    .set({ outcome: 'FAILED', finishedAt: sql`now()`, updatedAt: sql`now()`, detail: JSON.stringify(detail) })
    .where('userId', '=', userId)
    .where('callId', '=', callId)
    .where('stage', '=', stage)
    .where('outcome', '=', 'RUNNING')
    .execute();
}

/**
 * Once the call is complete, the intermediate outputs (recognised words, diarization: large for a
 * long call) are no longer needed: the transcript and analysis artifacts hold the result.
 */
export async function dropCallStageOutputs(db: Q, userId: string, callId: string): Promise<void> {
  await db.updateTable('callStages').set({ output: null }).where('userId', '=', userId).where('callId', '=', callId).where('output', 'is not', null).execute();
}
