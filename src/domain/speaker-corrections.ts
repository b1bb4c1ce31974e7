// Manual speaker corrections of a stored transcript: swap the two speakers, rename one, set one's
// role, or move a segment to another speaker. A pure function of the transcript and the operations
// (applied in order, all or nothing); correctSpeakers stores the result and requests the analysis.
//
// Rules (documented in the OpenAPI document):
// - A corrected speaker gets labelSource MANUAL and confidence HIGH; a later automatic resolution
//   leaves MANUAL speakers alone (see applyResolution in src/pipeline/normalize.ts).
// - SWAP_SPEAKERS exchanges the identities (label, displayName, role) of the two speakers; which
//   segments belong to which speaker (the voices) is unchanged. The voice-match score stays with
//   the voice it was measured on.
// - SET_ROLE USER or CONTACT on one speaker gives the speaker that held that role the opposite one,
//   since a two-party call has one user and one contact.
// - MOVE_SEGMENT attributes one segment to another speaker (by default the other one of two; with a
//   single speaker a new speaker is created). The segment's sourceSpeakerId keeps what speaker
//   separation said; speakers are not marked MANUAL by a move, since their identity is unchanged.
// - speakerResolution (telemetry of the automatic resolution) is left as it was.
import type { Db } from '../store/database.js';
import type { User } from '../store/schema.js';
import { getArtifact, saveArtifact } from '../store/repos/artifacts.js';
import { lockCallRevision } from '../store/repos/calls.js';
import type { JobQueue } from '../store/queue.js';
import { findCall, recordEvent } from './calls.js';
import { ErrorCode, errors, ServiceError } from './errors.js';
import { requestAnalysis } from './reanalysis.js';
import { cleanTextOf, type SpeakerRole, type Transcript, type TranscriptSegment, type TranscriptSpeaker } from './transcript.js';

export type SpeakerCorrection =
  | { type: 'SWAP_SPEAKERS' }
  | { type: 'RENAME_SPEAKER'; speakerId: string; displayName: string }
  | { type: 'SET_ROLE'; speakerId: string; role: SpeakerRole }
  | { type: 'MOVE_SEGMENT'; segmentId: string; speakerId?: string };

/** What changed, for the audit in processing events: ids and roles only, never names or text. */
export type CorrectionChange =
  | { type: 'SWAP_SPEAKERS'; speakerIds: [string, string] }
  | { type: 'RENAME_SPEAKER'; speakerId: string }
  | { type: 'SET_ROLE'; speakerId: string; from: SpeakerRole; to: SpeakerRole }
  | { type: 'MOVE_SEGMENT'; segmentId: string; from: string; to: string; createdSpeaker?: boolean };

const OPPOSITE: Partial<Record<SpeakerRole, SpeakerRole>> = { USER: 'CONTACT', CONTACT: 'USER' };

function notApplicable(index: number, reason: string): ServiceError {
  return errors.of(ErrorCode.SpeakerCorrectionNotApplicable, { operation: index, reason });
}

function unknownRef(index: number, field: string, what: string): ServiceError {
  return errors.validation({ fields: [{ path: `/body/operations/${index}/${field}`, message: `is not a ${what} of this transcript` }] });
}

export function applySpeakerCorrections(transcript: Transcript, operations: SpeakerCorrection[]): { transcript: Transcript; changes: CorrectionChange[] } {
  const speakers: TranscriptSpeaker[] = transcript.speakers.map((s) => ({ ...s }));
  const segments: TranscriptSegment[] = transcript.segments.map((s) => ({ ...s }));
  const changes: CorrectionChange[] = [];
  const speakerAt = (index: number, id: string) => {
    const s = speakers.find((x) => x.speakerId === id);
    if (!s) throw unknownRef(index, 'speakerId', 'speaker');
    return s;
  };
  const markManual = (s: TranscriptSpeaker) => {
    s.labelSource = 'MANUAL';
    s.confidence = 'HIGH';
  };

  operations.forEach((op, i) => {
    switch (op.type) {
      case 'SWAP_SPEAKERS': {
        if (speakers.length !== 2) throw notApplicable(i, 'swapping needs exactly two speakers');
        const [a, b] = speakers as [TranscriptSpeaker, TranscriptSpeaker];
        [a.label, b.label] = [b.label, a.label];
        [a.displayName, b.displayName] = [b.displayName, a.displayName];
        [a.role, b.role] = [b.role, a.role];
        markManual(a);
        markManual(b);
        changes.push({ type: 'SWAP_SPEAKERS', speakerIds: [a.speakerId, b.speakerId] });
        break;
      }
      case 'RENAME_SPEAKER': {
        const s = speakerAt(i, op.speakerId);
        const name = op.displayName.trim();
        if (!name) throw errors.validation({ fields: [{ path: `/body/operations/${i}/displayName`, message: 'must not be blank' }] });
        s.label = name;
        s.displayName = name;
        markManual(s);
        changes.push({ type: 'RENAME_SPEAKER', speakerId: s.speakerId });
        break;
      }
      case 'SET_ROLE': {
        const s = speakerAt(i, op.speakerId);
        const opposite = OPPOSITE[op.role];
        if (opposite) {
          for (const other of speakers) {
            if (other !== s && other.role === op.role) {
              changes.push({ type: 'SET_ROLE', speakerId: other.speakerId, from: other.role, to: opposite });
              other.role = opposite;
              markManual(other);
            }
          }
        }
        changes.push({ type: 'SET_ROLE', speakerId: s.speakerId, from: s.role, to: op.role });
        s.role = op.role;
        markManual(s);
        break;
      }
      case 'MOVE_SEGMENT': {
        const seg = segments.find((x) => x.id === op.segmentId);
        if (!seg) throw unknownRef(i, 'segmentId', 'segment');
        let target: TranscriptSpeaker | undefined;
        let created = false;
        if (op.speakerId !== undefined) target = speakerAt(i, op.speakerId);
        else {
          const others = speakers.filter((s) => s.speakerId !== seg.speakerId);
          if (others.length > 1) throw errors.validation({ fields: [{ path: `/body/operations/${i}/speakerId`, message: 'is required when the transcript has more than two speakers' }] });
          target = others[0];
          if (!target) {
            const n = Math.max(0, ...speakers.map((s) => Number(s.speakerId.slice(4)) || 0)) + 1;
            target = {
              speakerId: `spk_${n}`,
              sourceSpeakerId: `manual_${n}`,
              label: `Speaker ${n}`,
              displayName: `Speaker ${n}`,
              role: 'UNKNOWN',
              confidence: 'HIGH',
              labelSource: 'MANUAL',
              voiceMatchScore: null,
              voiceProfileMatched: null,
            };
            speakers.push(target);
            created = true;
          }
        }
        if (target.speakerId === seg.speakerId) break;
        changes.push({ type: 'MOVE_SEGMENT', segmentId: seg.id, from: seg.speakerId, to: target.speakerId, ...(created ? { createdSpeaker: true } : {}) });
        // `speaker` holds the speaker id (normalisation) or, in older transcripts, the name.
        seg.speaker = seg.speaker === seg.speakerId ? target.speakerId : target.displayName;
        seg.speakerId = target.speakerId;
        break;
      }
    }
  });

  // Segments follow their speaker's current identity.
  const byId = new Map(speakers.map((s) => [s.speakerId, s]));
  for (const seg of segments) {
    const s = byId.get(seg.speakerId);
    if (!s) continue;
    if (seg.speaker !== seg.speakerId) seg.speaker = s.displayName;
    seg.speakerLabel = s.label;
    seg.speakerDisplayName = s.displayName;
    seg.role = s.role;
  }
  return { transcript: { ...transcript, speakers, segments, cleanText: cleanTextOf(segments) }, changes };
}

export interface CorrectionDeps {
  db: Db;
  queue: Pick<JobQueue, 'enqueueAnalysis'>;
}

/**
 * Applies corrections to a completed call's transcript and answers with the corrected transcript
 * at once: the transcript, the audit event and the request for a new analysis (the analysis job,
 * coalesced per call; see requestAnalysis) are written in one transaction, and the analysis follows
 * on ANALYSIS_QUEUE, so the request never waits for a model (issue 22). If the transcript was
 * corrected meanwhile (another request), the corrections are applied again to the new one.
 */
export async function correctSpeakers(deps: CorrectionDeps, user: Pick<User, 'id' | 'displayName'>, callId: string, operations: SpeakerCorrection[]): Promise<Transcript> {
  const { db } = deps;
  for (let round = 0; ; round++) {
    const call = await findCall(db, user.id, callId);
    if (!call) throw errors.callNotFound();
    if (call.status !== 'COMPLETED') throw errors.callNotCompleted(call.status);
    const stored = await getArtifact<Transcript>(db, user.id, callId, 'transcript');
    if (!stored) throw errors.callNotFound();
    const { transcript, changes } = applySpeakerCorrections(stored, operations);

    const written = await db.transaction().execute(async (trx) => {
      const current = await lockCallRevision(trx, user.id, callId);
      if (!current) throw errors.callNotFound();
      if (current.status !== 'COMPLETED') throw errors.callNotCompleted(current.status);
      // Every write of a corrected transcript moves the revision, so an unchanged revision means
      // the transcript read above is still the stored one.
      if (current.transcriptRevision !== call.transcriptRevision) return false;
      await saveArtifact(trx, user.id, callId, 'transcript', transcript.schemaVersion, transcript);
      await requestAnalysis(trx, deps.queue, user.id, callId);
      await recordEvent(trx, user.id, callId, 'SPEAKERS', 'CORRECTED', { actorUserId: user.id, changes });
      return true;
    });
    if (written) return transcript;
    if (round >= 2) throw errors.of(ErrorCode.ServiceUnavailable);
  }
}
