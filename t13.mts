import { buildAnalysis } from './src/pipeline/analysis/embedded/index.ts';
import { cleanTextOf } from './src/domain/transcript.ts';
function mk(turns: Array<[0|1, string]>, names = ['Anna Berg', 'Tom Wells']) {
  let t = 0;
  const segments = turns.map(([sp, text], i) => { const dur = text.split(' ').length / 2.6; const s = { id: `seg_${String(i+1).padStart(4,'0')}`, speaker: `spk_${sp+1}`, speakerId: `spk_${sp+1}`, sourceSpeakerId: `S${sp}`, speakerLabel: names[sp], speakerDisplayName: names[sp], role: sp === 0 ? 'USER' : 'CONTACT', startSeconds: t, endSeconds: t + dur, text, alignmentConfidence: 'HIGH' }; t += dur + 0.5; return s; });
  return { schemaVersion: 2, callId: '00000000-0000-4000-8000-000000000000', language: 'en', durationSeconds: Math.round(t), cleanText: cleanTextOf(segments as any), speakers: names.map((n, i) => ({ speakerId: `spk_${i+1}`, sourceSpeakerId: `S${i}`, label: n, displayName: n, role: i === 0 ? 'USER' : 'CONTACT', confidence: 'HIGH', labelSource: 'MANUAL', voiceMatchScore: null, voiceProfileMatched: null })), segments, speakerResolution: { strategyVersion: 2, usedUserDisplayName: true, usedContactName: true, usedDirection: true, usedPhoneFallback: false, voiceEmbeddingEnabled: false, voiceProfileUsed: false, voiceMatchStatus: 'DISABLED', totalSpeakerCount: 2, resolvedSpeakerCount: 2, warnings: [] }, pipeline: { transcriptionProvider: 'x', transcriptionModel: 'x', diarizationProvider: 'x', diarizationModel: 'x', alignmentVersion: '1', normalizationVersion: 3, status: 'COMPLETED' }, createdAt: '2025-06-10T15:00:00Z' } as any;
}
const ctx = { userDisplayName: 'Anna Berg', contactName: 'Tom Wells', phoneNumber: '+1 415 555 0100', direction: 'OUTGOING' as const, recordedAt: '2025-06-10T15:00:00Z', title: null };
const calls: Array<Array<[0|1,string]>> = [
  [[1,'Thanks for calling Acme Insurance, this is Tom.'],[0,'Hi Tom, I am calling about my claim, the reference is claim number four four seven two.'],[1,'Let me pull that up. Okay, I see it. We still need a copy of the repair invoice.'],[0,'Oh, I thought I sent that last week.'],[1,'It did not come through. Could you upload it to the portal or email it to claims at acme insurance dot com?'],[0,'Sure, I will email it tonight.'],[1,'Great. Once we have it, the payout should take about ten business days.'],[0,'Okay. Can you give me a call when it is approved?'],[1,'Absolutely, I will call you as soon as it is approved. Is this number the best one?'],[0,'Yes, this number is fine.']],
  [[0,'Hey Tom, quick one. Are you free for a call on Thursday at three to go over the budget?'],[1,'Thursday at three works. I will send you a Teams invite.'],[0,'Perfect. Also, do not forget to bring the signed contract to the office on Monday.'],[1,'Got it. I will ping you on Telegram if anything comes up.'],[0,'Cool, thanks. Bye.']],
  [[1,'Hello?'],[0,'Hi, I saw your ad for the apartment on Elm Street. Is it still available?'],[1,'Yes it is. The rent is one thousand two hundred dollars a month.'],[0,'Could I come and see it this weekend?'],[1,'Sure, how about Saturday at eleven?'],[0,'Saturday at eleven is great. What is the address?'],[1,'It is forty two Elm Street, apartment three B. I will text you the door code on Saturday morning.'],[0,'Thanks, see you then.']],
];
for (const turns of calls) {
  const a = buildAnalysis(mk(turns), ctx);
  console.log('---', a.callType, a.sentiment?.overall, '|', a.oneLineSummary);
  console.log('   X', a.executiveSummary);
  for (const i of a.actionItems ?? []) console.log('  A', i.ownerRole, i.intent, i.dueDate, i.priority, i.title, JSON.stringify(i.intentMetadata));
  for (const n of a.nextSteps ?? []) console.log('  N', (n as any).ownerRole, n.text, '|', n.when);
  console.log('  nums', JSON.stringify(a.numbersAndAmounts?.map((n:any)=>[n.kind,n.value])), 'dates', JSON.stringify(a.importantDates?.map((d:any)=>[d.text,d.resolved])), 'people', JSON.stringify(a.peopleMentioned?.map((p:any)=>p.name)));
}
