// Resolve: the speakers named (strategy 2) and the transcript built, validated and stored as the
// call's transcript artifact.
import { TRANSCRIPT_SCHEMA_VERSION, type Transcript } from '../../domain/transcript.js';
import { saveArtifact } from '../../store/repos/artifacts.js';
import { nameSpeakers } from '../speech.js';
import { defineStage } from './stage.js';
import { decode } from './decode.js';
import { transcribe } from './transcribe.js';
import { diarize } from './diarize.js';
import { resolutionContextOf, voice } from './voice.js';

export const resolve = defineStage({
  name: 'resolve',
  job: 'call',
  step: 'RESOLVE',
  status: 'TRANSCRIBING',
  progress: 'ANALYZE',
  holds: [],
  async run(ctx) {
    const { recognition, wordTimes } = ctx.output(transcribe);
    const transcript: Transcript = nameSpeakers({
      callId: ctx.call.id,
      context: resolutionContextOf(ctx),
      voice: ctx.output(voice) ?? undefined,
      diarization: ctx.output(diarize),
      recognition,
      durationSeconds: ctx.output(decode).durationSeconds,
      qualityWarnings: wordTimes.warnings,
    });
    return {
      output: transcript,
      event: { warnings: transcript.speakerResolution.warnings, voiceMatchStatus: transcript.speakerResolution.voiceMatchStatus, segments: transcript.segments.length },
    };
  },
  async save(ctx, transcript, trx) {
    await saveArtifact(trx, ctx.call.userId, ctx.call.id, 'transcript', TRANSCRIPT_SCHEMA_VERSION, transcript);
  },
});
