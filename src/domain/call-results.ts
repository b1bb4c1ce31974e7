// Storing an analysis result: the artifact, the AI action items (merged so that the user's edits
// and deletions survive, see replaceAiActionItems) and the call's suggested title and summary, all
// in the caller's transaction, which holds the call row locked. Shared by the pipeline's completion
// step, re-analysis and the analysis of speaker corrections, so all have the same side effects.
import type { Tx } from '../store/database.js';
import { ANALYSIS_SCHEMA_VERSION, type Analysis, type AnalysisContext } from './analysis.js';
import { replaceAiActionItems } from './action-items.js';
import type { Call, User } from '../store/schema.js';
import { saveArtifact } from '../store/repos/artifacts.js';
import { setAnalysisSummary } from '../store/repos/calls.js';

export async function storeAnalysis(trx: Tx, userId: string, callId: string, analysis: Analysis): Promise<void> {
  await saveArtifact(trx, userId, callId, 'analysis', analysis.schemaVersion ?? ANALYSIS_SCHEMA_VERSION, analysis);
  await replaceAiActionItems(trx, userId, callId, analysis);
  // The one-line summary mirrors the analysis until the user edits it.
  await setAnalysisSummary(trx, userId, callId, analysis.suggestedTitle ?? null, analysis.oneLineSummary ?? null);
}

export function analysisContextOf(call: Call, user: Pick<User, 'displayName'>): AnalysisContext {
  return {
    userDisplayName: user.displayName,
    contactName: call.contactName,
    phoneNumber: call.phoneNumber,
    direction: call.direction === 'INCOMING' || call.direction === 'OUTGOING' ? call.direction : null,
    recordedAt: (call.recordedAt ?? call.createdAt).toISOString(),
    title: call.title ?? call.uploadTitle,
  };
}
