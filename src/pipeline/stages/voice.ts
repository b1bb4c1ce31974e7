// Voice: the user's voice profile (when the feature is on) matched against the call's speakers.
import type { ResolutionContext } from '../types.js';
import { matchVoice } from '../speech.js';
import { deserializeEmbedding } from '../voice/embedder.js';
import { activeVoiceProfile } from '../../store/repos/voice-profiles.js';
import { defineStage, type StageContext } from './stage.js';
import { diarize } from './diarize.js';

export type VoiceMatch = ResolutionContext['voice'];

export function resolutionContextOf(ctx: StageContext): Omit<ResolutionContext, 'voice'> {
  const { call, deps } = ctx;
  return {
    userDisplayName: ctx.user.displayName,
    contactName: call.contactName,
    phoneNumber: call.phoneNumber,
    direction: call.direction === 'INCOMING' || call.direction === 'OUTGOING' ? call.direction : null,
    voiceEmbeddingEnabled: deps.config.voice.enabled,
  };
}

export const voice = defineStage({
  name: 'voice',
  job: 'call',
  step: null,
  status: 'TRANSCRIBING',
  progress: 'ANALYZE',
  holds: [],
  async run(ctx) {
    const { call, deps, db } = ctx;
    const diarization = ctx.output(diarize);
    const profile = deps.config.voice.enabled ? await activeVoiceProfile(db, call.userId) : undefined;
    // A profile made by another embedding provider is not comparable; it is treated as absent.
    const voiceProfile = profile && profile.provider === deps.pipeline.embedder.provider ? deserializeEmbedding(profile.embedding) : null;
    const context = resolutionContextOf(ctx);
    // Only a comparison needs the audio: without the feature or a profile a resumed job decodes nothing.
    const audio = context.voiceEmbeddingEnabled && voiceProfile ? await ctx.audio() : null;
    const match: VoiceMatch = await ctx.time('voice', () => matchVoice(deps.pipeline, { context, voiceProfile }, audio, diarization));
    return { output: match ?? null };
  },
});
