// Which speakers of bench/support/real-speakers.ts might be one person (a reader of several
// ktuberling or KLettres languages): two stretches of about 12 s per speaker, embedded with the
// fitted model (src/pipeline/voice/voice-model.ts), S-norm scores within each speaker and between
// every two. A between-speaker score as high as the within-speaker ones is a reason to listen, not
// proof: single-word stretches score low even within one speaker. Prints only; decides nothing.
//
//   node --import tsx bench/voice-readers.ts
import { ProjectedStatsEmbedder } from '../src/pipeline/voice/embedder.js';
import { normalizedScores } from '../src/pipeline/voice/match.js';
import { SPEAKER_SOURCES, takeSpeech, utteranceFiles, SR } from './support/real-speakers.js';
const e = new ProjectedStatsEmbedder();
const embs: Record<string, Float32Array[]> = {};
for (const s of Object.keys(SPEAKER_SOURCES)) {
  const files = utteranceFiles(s);
  let at = 0;
  embs[s] = [];
  for (let i = 0; i < 2; i++) {
    const { pcm, next, speechSeconds } = takeSpeech(files, at, 12);
    at = next;
    if (speechSeconds < 4) break;
    try {
      embs[s].push(await e.embed(pcm, SR));
    } catch {
      // too little speech after gating: the speaker is listed with fewer stretches
    }
  }
  process.stderr.write(`${s} ${embs[s].length}\n`);
}
const names = Object.keys(embs).filter((s) => embs[s].length > 0);
const within: Array<[string, number]> = [];
for (const s of names) if (embs[s].length === 2) within.push([s, normalizedScores(embs[s][0], { x: embs[s][1] }, e.model).x]);
within.sort((a, b) => a[1] - b[1]);
console.log('within (lowest first):', within.map(([s, z]) => `${s} ${z.toFixed(2)}`).join(', '));
const between: Array<[string, number]> = [];
for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) {
  let m = -Infinity;
  for (const a of embs[names[i]]) for (const b of embs[names[j]]) m = Math.max(m, normalizedScores(a, { x: b }, e.model).x);
  between.push([`${names[i]}~${names[j]}`, m]);
}
between.sort((a, b) => b[1] - a[1]);
console.log('between (highest first):', between.slice(0, 25).map(([s, z]) => `${s} ${z.toFixed(2)}`).join(', '));
