import { loadScorer, loadTruth, corpusIds } from './test/support/corpus.ts';
import { buildCallText } from './src/pipeline/analysis/embedded/text.ts';
import { extractActions } from './src/pipeline/analysis/embedded/actions.ts';
const sc = await loadScorer();
for (const id of corpusIds()) {
  const truth = loadTruth(id);
  const t = sc.perfectTranscript(truth, { speakerIds: { A: 'spk_1', B: 'spk_2' } });
  const ct = buildCallText(t, { userDisplayName: truth.user.displayName, contactName: truth.upload.contactName, phoneNumber: truth.upload.phoneNumber, direction: truth.upload.direction, recordedAt: truth.upload.recordedAt, title: null });
  const r = extractActions(ct);
  console.log('==', id);
  for (const a of r.actionItems) console.log('  A', a.ownerRole, a.intent, a.dueDate, a.priority, JSON.stringify(a.title), JSON.stringify(a.intentMetadata), a.sourceSegmentIds!.join(','));
  for (const n of r.nextSteps) console.log('  N', n.ownerRole, n.dueDate, JSON.stringify(n.text), n.when);
  for (const d of r.decisions) console.log('  D', d.text);
  for (const e of truth.expect.actionItems) console.log('  E', truth.speakers[e.owner].role, e.intent, e.due, e.text, e.optional?'(opt)':'');
}
