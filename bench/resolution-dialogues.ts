// Speaker naming (src/pipeline/resolution) re-run on the dev part's cached speech-stage transcripts
// (.cache/analysis-transcripts/<speech version>/, written by bench/analysis-heldout.ts), scored for
// roles and naming with the corpus scorer: seconds per iteration when only the resolution rules
// change, instead of re-running diarization for 100 recordings. Only devIds() are read (never the
// held-out calls). The utterances are rebuilt from the stored segments, as a re-naming of a stored
// transcript does (speakerUtterancesOfTranscript); confirm with bench/analysis-heldout.ts.
//   npx tsx bench/resolution-dialogues.ts [<transcript dir>] [--ids a,b] [--verbose] [--all] [--text] [--noisy] [--drop-hello]
// Without a directory: the most recently written one. --text resolves the dialogue's own turns
// instead (exact words, perfect diarization; --noisy lower-cases and strips punctuation as a
// recogniser does; --drop-hello drops a first turn of one or two words, the "Hello?" a recogniser or
// the VAD often loses): what the rules can do when recognition and diarization are right. Each call's
// line says which evidence decided its roles (labelSource per speaker); the totals count the calls
// left to the positional guess (POSITIONAL_FALLBACK) and those with one speaker.
import fs from 'node:fs';
import path from 'node:path';
import { resolveSpeakers } from '../src/pipeline/resolution/resolve.js';
import { speakerUtterancesOfTranscript } from '../src/pipeline/normalize.js';
import { loadScorer, projectRoot } from '../test/support/corpus.js';
import { truthTranscript } from './analysis.js';
import { devIds } from './support/analysis-sets.js';

const textTier = process.argv.includes('--text');
const noisy = process.argv.includes('--noisy');
const root = path.join(projectRoot, '.cache/analysis-transcripts');
const dir = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2]
  : textTier ? '' : path.join(root, fs.readdirSync(root).sort((a, b) => fs.statSync(path.join(root, b)).mtimeMs - fs.statSync(path.join(root, a)).mtimeMs)[0]);
const onlyArg = process.argv.indexOf('--ids');
const only = onlyArg >= 0 ? process.argv[onlyArg + 1].split(',') : null;
const verbose = process.argv.includes('--verbose');
const scorer = await loadScorer();
const files = textTier ? [] : fs.readdirSync(dir);
const tally: Record<string, [number, number, number, number, number]> = {};
const asHeard = (text: string) => (noisy ? text.toLowerCase().replace(/[^a-z' ]+/g, ' ').replace(/\s+/g, ' ').trim() : text);
for (const id of devIds()) {
  if (only && !only.includes(id)) continue;
  if (!fs.existsSync(path.join(projectRoot, '.cache/analysis-dialogues', id, 'truth.json'))) continue; // not rendered yet
  const truth = JSON.parse(fs.readFileSync(path.join(projectRoot, '.cache/analysis-dialogues', id, 'truth.json'), 'utf8'));
  for (const tier of textTier ? ['text'] : ['m4a', 'phone8k']) {
    const f = files.find((x) => x.startsWith(`${id}.${tier}.`));
    if (!f && !textTier) continue;
    const t = textTier ? truthTranscript(truth, scorer) : JSON.parse(fs.readFileSync(path.join(dir, f!), 'utf8'));
    if (textTier) t.segments = t.segments.map((g: any) => ({ ...g, sourceSpeakerId: g.speakerId, text: asHeard(g.text) }));
    if (textTier) t.speakers = t.speakers.map((sp: any) => ({ ...sp, sourceSpeakerId: sp.speakerId }));
    if (textTier && process.argv.includes('--drop-hello') && t.segments[0].text.split(/\s+/).length <= 2) t.segments = t.segments.slice(1);
    const before = scorer.scoreTranscript(truth, t);
    const res = resolveSpeakers(speakerUtterancesOfTranscript(t), {
      userDisplayName: truth.user.displayName, contactName: truth.upload.contactName, phoneNumber: truth.upload.phoneNumber,
      direction: truth.upload.direction, voiceEmbeddingEnabled: false, voice: { status: 'DISABLED', scores: {}, threshold: 0.5 },
    });
    const bySrc = new Map(res.speakers.map((s) => [s.sourceSpeakerId, s]));
    const t2 = { ...t, speakers: t.speakers.map((s: any) => ({ ...s, ...bySrc.get(s.sourceSpeakerId), speakerId: s.speakerId })),
      segments: t.segments.map((g: any) => ({ ...g, role: bySrc.get(g.sourceSpeakerId)!.role, speakerDisplayName: bySrc.get(g.sourceSpeakerId)!.displayName })) };
    const after = scorer.scoreTranscript(truth, t2);
    const k = tally[tier] ??= [0, 0, 0, 0, 0];
    k[0]++; if (after.roleAccuracy === 1) k[1]++; if (after.naming === 1) k[2]++;
    if (res.speakers.some((s) => s.labelSource === 'POSITIONAL_FALLBACK')) k[3]++;
    if (res.speakers.length === 1) k[4]++;
    const changed = before.roleAccuracy !== after.roleAccuracy || before.naming !== after.naming;
    if (after.roleAccuracy !== 1 || after.naming !== 1 || changed || process.argv.includes('--all')) {
      console.log(`${tier} ${id}: roles ${before.roleAccuracy}->${after.roleAccuracy} naming ${before.naming}->${after.naming} ${changed ? 'CHANGED' : ''} (${res.speakers.map((s) => `${s.sourceSpeakerId}=${s.role}/${s.labelSource}`).join(', ')}; ${res.speakerResolution.warnings.join(',')})`);
      if (verbose) for (const g of t.segments) console.log(`    | ${g.sourceSpeakerId} ${bySrc.get(g.sourceSpeakerId)!.role}: ${g.text}`);
    }
  }
}
for (const [tier, [n, r, nm, pos, one]] of Object.entries(tally)) console.log(`${tier}: roles ${r}/${n}, naming ${nm}/${n}, positional guess ${pos}, one speaker ${one}`);
