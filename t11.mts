import { buildAnalysis } from './src/pipeline/analysis/embedded/index.ts';
import { cleanTextOf } from './src/domain/transcript.ts';
function mk(turns: Array<[0|1, string]>, names = ['Anna Berg', 'Tom Wells']) {
  let t = 0;
  const segments = turns.map(([sp, text], i) => { const dur = text.split(' ').length / 2.6; const s = { id: `seg_${String(i+1).padStart(4,'0')}`, speaker: `spk_${sp+1}`, speakerId: `spk_${sp+1}`, sourceSpeakerId: `S${sp}`, speakerLabel: names[sp], speakerDisplayName: names[sp], role: sp === 0 ? 'USER' : 'CONTACT', startSeconds: t, endSeconds: t + dur, text, alignmentConfidence: 'HIGH' }; t += dur + 0.5; return s; });
  return { schemaVersion: 2, callId: '00000000-0000-4000-8000-000000000000', language: 'en', durationSeconds: Math.round(t), cleanText: cleanTextOf(segments as any), speakers: names.map((n, i) => ({ speakerId: `spk_${i+1}`, sourceSpeakerId: `S${i}`, label: n, displayName: n, role: i === 0 ? 'USER' : 'CONTACT', confidence: 'HIGH', labelSource: 'MANUAL', voiceMatchScore: null, voiceProfileMatched: null })), segments, speakerResolution: { strategyVersion: 2, usedUserDisplayName: true, usedContactName: true, usedDirection: true, usedPhoneFallback: false, voiceEmbeddingEnabled: false, voiceProfileUsed: false, voiceMatchStatus: 'DISABLED', totalSpeakerCount: 2, resolvedSpeakerCount: 2, warnings: [] }, pipeline: { transcriptionProvider: 'x', transcriptionModel: 'x', diarizationProvider: 'x', diarizationModel: 'x', alignmentVersion: '1', normalizationVersion: 3, status: 'COMPLETED' }, createdAt: '2025-06-10T15:00:00Z' } as any;
}
const ctx = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: '+44 20 7946 0000', direction: 'OUTGOING' as const, recordedAt: '2025-06-10T15:00:00Z', title: null };
const calls: Array<Array<[0|1,string]>> = [
  [[1,'Hello, Tom speaking.'],[0,'Hi Tom, it is Anna from the design studio. Do you have a moment to talk about the new logo?'],[1,'Sure. I looked at the drafts yesterday and I really like the second one.'],[0,'Great. Let us set up a Google Meet on Friday at two p.m. to go through the final version.'],[1,'Friday at two works. Send the invite to tom dot wells at acme dot co dot uk.'],[0,'Will do. I will also email you the invoice for the first phase tomorrow.'],[1,'Perfect. And remind me to sign the contract, I keep forgetting.'],[0,'No problem. Talk soon.']],
  [[0,'Hi, is that the plumber?'],[1,'Yes, speaking.'],[0,'My kitchen sink is leaking again and the water is everywhere. This is really frustrating.'],[1,'I am sorry to hear that. I can come by tomorrow morning around nine.'],[0,'Okay. If you are running late, could you text me on zero seven seven zero zero, nine zero zero, one two three?'],[1,'Of course. I will text you if anything changes.'],[0,'Thanks.']],
  [[0,'Hello?'],[1,'Hi, just calling to say the weather is lovely today.'],[0,'Oh nice, enjoy it.'],[1,'Thanks, bye.']],
];
for (const turns of calls) {
  const a = buildAnalysis(mk(turns), ctx);
  console.log('---', a.callType, a.sentiment?.overall, '|', a.oneLineSummary);
  for (const i of a.actionItems ?? []) console.log('  A', i.ownerRole, i.intent, i.dueDate, i.title, JSON.stringify(i.intentMetadata));
  for (const n of a.nextSteps ?? []) console.log('  N', (n as any).ownerRole, n.text, n.when);
  console.log('  bullets', a.executiveSummaryBullets?.length, 'tags', a.tags, 'qw', a.qualityWarnings, 'dates', JSON.stringify(a.importantDates?.map((d:any)=>[d.text,d.resolved])));
}
