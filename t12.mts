import { loadScorer, loadTruth, corpusIds } from './test/support/corpus.ts';
import { truthTranscript, contextOf } from './bench/analysis.ts';
import { EmbeddedAnalyzer } from './src/pipeline/analysis/embedded/index.ts';
const sc = await loadScorer();
const only = process.argv[2];
for (const id of corpusIds()) {
  if (only && id !== only) continue;
  const truth = loadTruth(id);
  const a: any = await new EmbeddedAnalyzer().analyze(truthTranscript(truth, sc), contextOf(truth));
  console.log('==', id, '|', a.suggestedTitle, '|', a.tags.join(','));
  console.log('  1:', a.oneLineSummary);
  console.log('  X:', a.executiveSummary);
  console.log('  O:', a.conversationOutcome);
  console.log('  S:', a.sections.map((s:any)=>`${s.id} ${s.title} [${s.type}] (${s.items.length})`).join(' | '));
  console.log('  B:', a.executiveSummaryBullets?.map((b:any)=>`${b.startTimestamp} ${b.header}`).join(' | '));
  console.log('  K:', a.keyDiscussionPoints.map((k:any)=>`${k.phase}/${k.topic}`).join(' | '));
  console.log('  sent:', a.sentiment.overall, a.sentiment.score, a.sentiment.emotionalSignals.join(','), '|', a.sentiment.reason);
  console.log('  tone:', a.tone.overall, a.tone.formality, a.tone.energy, a.tone.pace, a.tone.descriptors.join(','));
  console.log('  people:', a.peopleMentioned.map((p:any)=>p.name).join(','), '| nums:', a.numbersAndAmounts.map((n:any)=>`${n.kind}:${n.value}`).join(','), '| dec:', a.decisions.length, '| oq:', a.openQuestions.map((q:any)=>q.text).join(' / '), '| risks:', a.risks.length, '| opp:', a.opportunities.length);
}
