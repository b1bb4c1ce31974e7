// Calls: repository functions take the owner id first, so every query is scoped to its owner and
// a foreign call is indistinguishable from a missing one.
import type { Executor as Q } from '../store/repos/executor.js';
import type { Call } from '../store/schema.js';
import { listCallStages } from '../store/repos/call-stages.js';
// Used inside callProgress only (stage modules import this module: no top-level use, no cycle at load).
import { STAGES, type StageStep } from '../pipeline/stages/index.js';
import { recordEvent as insertEvent } from '../store/repos/calls.js';

// The call rows' statements live in the calls repository; these names are the domain's API.
export { findCall, updateCallFields, deleteCallRow } from '../store/repos/calls.js';
// The polled reads (status, list) and their prepared statements: src/store/repos/call-reads.ts.
export { CallListReader, CallStatusReader, decodeCursor } from '../store/repos/call-reads.js';

/** The steps of a call's processing events (an API field): the pipeline stages' steps, and the upload's and corrections'. */
export type ProcessingStep = StageStep | 'UPLOAD' | 'SPEAKERS';
export type ProcessingOutcome = 'ACCEPTED' | 'STARTED' | 'PROGRESS' | 'REUSED' | 'COMPLETED' | 'RETRY_SCHEDULED' | 'FAILED' | 'CORRECTED';

/** One processing event of the call (no personal data in `detail`: ids, counts, reasons, timings). */
export function recordEvent(db: Q, userId: string, callId: string, step: ProcessingStep, outcome: ProcessingOutcome, detail: Record<string, unknown> | null = null): Promise<void> {
  return insertEvent(db, userId, callId, step, outcome, detail);
}

/** The title shown: the user's edit, else the upload's, else the analysis's suggestion. */
export function effectiveTitle(call: Pick<Call, 'title' | 'uploadTitle' | 'suggestedTitle'>): string | null {
  return call.title ?? call.uploadTitle ?? call.suggestedTitle ?? null;
}

export function callDetailOf(call: Call) {
  return {
    callId: call.id,
    title: effectiveTitle(call),
    status: call.status,
    direction: call.direction,
    contactName: call.contactName,
    phoneNumber: call.phoneNumber,
    durationSeconds: call.durationSeconds,
    recordedAt: call.recordedAt ? call.recordedAt.toISOString() : null,
    createdAt: call.createdAt.toISOString(),
    errorReason: call.errorReason,
    summary: call.summary,
    notes: call.notes,
    serviceContactId: call.serviceContactId,
    // The analysis of a corrected transcript is queued or running (see domain/reanalysis.ts).
    ...(call.analysisRequestedRevision != null ? { analysisPending: true as const } : {}),
  };
}

/** The values of `progress.stage` (an API enum); each pipeline stage names the one it reports as (src/pipeline/stages/). */
export const PROGRESS_STAGES = ['DECODE', 'TRANSCRIBE', 'DIARIZE', 'ANALYZE'] as const;
export type ProgressStage = (typeof PROGRESS_STAGES)[number];
export interface CallProgress {
  stage: ProgressStage;
  /** Share of the stage done, 0..100; null for stages that do not report it. */
  percent: number | null;
  updatedAt: string;
}

/**
 * Where a call in processing stands, read from its stage state (call_stages, written by the stage
 * runner): the first stage of the list that has not finished, shown as the progress stage it
 * reports as, with its percent where the stage reports one (recognition, 0 until its first report;
 * analysis in parts). Undefined for queued and finished calls, and before the first stage started.
 */
export async function callProgress(db: Q, userId: string, call: Pick<Call, 'id' | 'status'>): Promise<CallProgress | undefined> {
  if (call.status !== 'PROCESSING' && call.status !== 'TRANSCRIBING' && call.status !== 'ANALYZING') return undefined;
  const rows = await listCallStages(db, userId, call.id);
  if (rows.length === 0) return undefined;
  const byName = new Map(rows.map((r) => [r.stage, r]));
  const next = STAGES.find((s) => byName.get(s.name)?.outcome !== 'COMPLETED') ?? STAGES[STAGES.length - 1];
  const row = byName.get(next.name);
  const percent = row?.progress ?? (next.percentFromZero ? 0 : null);
  const latest = Math.max(...rows.map((r) => r.updatedAt.getTime()));
  return { stage: next.progress, percent, updatedAt: new Date(latest).toISOString() };
}


