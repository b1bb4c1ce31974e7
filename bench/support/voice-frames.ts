// Analysed frames of real-speaker renderings (bench/fit-voice.ts), cached on disk: rendering
// (microphone chain, codec) and frame analysis are the slow part of a fit, and every summary the
// fit compares (src/pipeline/voice/embedder.ts `summariseFrames`) is computed from these frames.
// Bump FRAMES_VERSION when `speechFrames` changes.
import fs from 'node:fs';
import path from 'node:path';
import { speechFrames, type SpeechFrames } from '../../src/pipeline/voice/embedder.js';
import { projectRoot } from '../../test/support/corpus.js';

const FRAMES_VERSION = 1;
const CEPSTRA = 20;
const dir = path.join(projectRoot, `.cache/voice27-frames-v${FRAMES_VERSION}`);

export type CachedFrames = Pick<SpeechFrames, 'cep' | 'delta' | 'logF0' | 'speechSeconds'>;

function write(file: string, fr: CachedFrames): void {
  const n = fr.cep.length;
  const out = new Float32Array(3 + 2 * CEPSTRA * n + fr.logF0.length);
  out[0] = n;
  out[1] = fr.logF0.length;
  out[2] = fr.speechSeconds;
  let at = 3;
  for (const c of fr.cep) for (let k = 0; k < CEPSTRA; k++) out[at++] = c[k];
  for (const d of fr.delta) for (let k = 0; k < CEPSTRA; k++) out[at++] = d[k];
  for (const f of fr.logF0) out[at++] = f;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.${process.pid}`, Buffer.from(out.buffer));
  fs.renameSync(`${file}.${process.pid}`, file);
}

function read(file: string): CachedFrames | null {
  const b = fs.readFileSync(file);
  const x = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  if (x[0] < 0) return null; // too little speech, remembered
  const n = x[0];
  const nf = x[1];
  let at = 3;
  const rows = () => Array.from({ length: n }, () => {
    const r = Float64Array.from(x.subarray(at, at + CEPSTRA));
    at += CEPSTRA;
    return r;
  });
  const cep = rows();
  const delta = rows();
  return { cep, delta, logF0: Array.from(x.subarray(at, at + nf)), speechSeconds: x[2] };
}

/** The frames of one rendering, computed by `render` and analysed once; null when it holds too little speech. */
export async function cachedFrames(key: string, render: () => Float32Array, sampleRate: number): Promise<CachedFrames | null> {
  const file = path.join(dir, `${key.replace(/[^\w.-]+/g, '_')}.f32`);
  if (fs.existsSync(file)) return read(file);
  try {
    const fr = await speechFrames(render(), sampleRate);
    write(file, fr);
    return fr;
  } catch (err) {
    if (!(err instanceof Error && err.name === 'EmbeddingError')) throw err;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, Buffer.from(Float32Array.from([-1, 0, 0]).buffer));
    return null;
  }
}
