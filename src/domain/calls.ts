// Calls: repository functions take the owner id first, so every query is scoped to its owner and
// a foreign call is indistinguishable from a missing one.
import type { Executor as Q } from '../store/repos/executor.js';
import { latestProcessingEvent } from '../store/repos/calls.js';
import type { Call } from '../store/schema.js';

// The call rows' statements live in the calls repository; these names are the domain's API.
export { findCall, updateCallFields, deleteCallRow, recordEvent } from '../store/repos/calls.js';
// The polled reads (status, list) and their prepared statements: src/store/repos/call-reads.ts.
export { CallListReader, CallStatusReader, decodeCursor } from '../store/repos/call-reads.js';

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

export const PROGRESS_STAGES = ['DECODE', 'TRANSCRIBE', 'DIARIZE', 'ANALYZE'] as const;
export interface CallProgress {
  stage: (typeof PROGRESS_STAGES)[number];
  /** Share of the stage done, 0..100; null for stages that do not report it. */
  percent: number | null;
  updatedAt: string;
}

/**
 * Where a call in processing stands, read from its latest processing event: the stage now
 * running and, where the stage reports it (recognition in parts, analysis in parts), its percent.
 * Undefined for queued and finished calls.
 */
export async function callProgress(db: Q, userId: string, call: Pick<Call, 'id' | 'status'>): Promise<CallProgress | undefined> {
  if (call.status !== 'PROCESSING' && call.status !== 'TRANSCRIBING' && call.status !== 'ANALYZING') return undefined;
  const last = await latestProcessingEvent(db, userId, call.id);
  if (!last) return undefined;
  const detail = (typeof last.detail === 'string' ? JSON.parse(last.detail) : last.detail) as { percent?: unknown } | null;
  const reported = typeof detail?.percent === 'number' ? Math.max(0, Math.min(100, Math.round(detail.percent))) : null;
  const at = (last.createdAt instanceof Date ? last.createdAt : new Date(last.createdAt as unknown as string)).toISOString();
  const key = `${last.step}/${last.outcome}`;
  let stage: CallProgress['stage'];
  let percent: number | null = null;
  if (key === 'DECODE/COMPLETED') [stage, percent] = ['TRANSCRIBE', 0];
  else if (key === 'TRANSCRIBE/PROGRESS') [stage, percent] = ['TRANSCRIBE', reported];
  else if (key === 'TRANSCRIBE/COMPLETED') stage = 'DIARIZE';
  else if (key === 'ANALYZE/PROGRESS') [stage, percent] = ['ANALYZE', reported];
  else if (['DIARIZE/COMPLETED', 'RESOLVE/COMPLETED', 'TRANSCRIBE/REUSED'].includes(key) || call.status === 'ANALYZING') stage = 'ANALYZE';
  else stage = 'DECODE';
  return { stage, percent, updatedAt: at };
}


