import { loadScorer, loadTruth, corpusIds } from './test/support/corpus.ts';
import { buildCallText, addresseeOf } from './src/pipeline/analysis/embedded/text.ts';
import { report } from './src/pipeline/analysis/embedded/report.ts';
const sc = await loadScorer();
for (const id of corpusIds().slice(0, 12)) {
  const truth = loadTruth(id);
  const t = sc.perfectTranscript(truth, { speakerIds: { A: 'spk_1', B: 'spk_2' } });
  const ct = buildCallText(t, { userDisplayName: truth.user.displayName, contactName: truth.upload.contactName, phoneNumber: truth.upload.phoneNumber, direction: truth.upload.direction, recordedAt: truth.upload.recordedAt, title: null });
  console.log('==', id);
  for (const u of ct.units) { const r = report(u, addresseeOf(ct, u), ct.speakers); if (r) console.log('  ', r); }
}
