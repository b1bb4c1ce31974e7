// Very short two-party calls rendered with flite (a few seconds each), for tests that need many
// processed calls: one WAV per dialogue, 16 kHz mono, cached under .cache/short-calls by content.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './corpus.js';

export interface ShortTurn { voice: 'slt' | 'kal16' | 'rms' | 'awb'; text: string }
export interface ShortCall {
  wavPath: string;
  /** Speech on- and offset of each turn in the file, in seconds. */
  turns: Array<{ startSeconds: number; endSeconds: number }>;
}

const SR = 16000;
/** Silence before the first and after the last turn. */
const EDGE_SECONDS = 0.3;
const cacheDir = path.join(projectRoot, '.cache/short-calls');
const sox = (args: string[]) => execFileSync('sox', ['-R', '-D', '-V1', ...args], { timeout: 30_000, stdio: ['ignore', 'ignore', 'inherit'] });

/**
 * Renders the turns with `pauseSeconds` between them (the default is longer than the transcript's
 * segment-splitting pause, so each turn is its own segment) and returns the WAV path (cached).
 */
export function renderShortCall(turns: ShortTurn[], pauseSeconds = 1.6): ShortCall {
  const key = crypto.createHash('sha256').update(JSON.stringify({ v: 2, turns, pauseSeconds, edge: EDGE_SECONDS })).digest('hex').slice(0, 16);
  const out = path.join(cacheDir, `${key}.wav`);
  const timesFile = path.join(cacheDir, `${key}.json`);
  if (fs.existsSync(out) && fs.existsSync(timesFile)) return { wavPath: out, turns: JSON.parse(fs.readFileSync(timesFile, 'utf8')) };
  fs.mkdirSync(cacheDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cacheDir, '.tmp-'));
  try {
    const silence = (file: string, seconds: number) => sox(['-r', String(SR), '-c', '1', '-n', '-b', '16', '-e', 'signed-integer', file, 'trim', '0', String(seconds)]);
    const pause = path.join(tmp, 'pause.wav');
    const edge = path.join(tmp, 'edge.wav');
    silence(pause, pauseSeconds);
    silence(edge, EDGE_SECONDS);
    const parts: string[] = [edge];
    const times: ShortCall['turns'] = [];
    let samples = Math.round(EDGE_SECONDS * SR);
    turns.forEach((t, i) => {
      const text = path.join(tmp, `t${i}.txt`);
      fs.writeFileSync(text, t.text);
      const raw = path.join(tmp, `raw${i}.wav`);
      execFileSync('flite', ['-voice', t.voice, '-f', text, '-o', raw], { timeout: 30_000 });
      const clean = path.join(tmp, `c${i}.wav`);
      // flite's own lead and tail pauses trimmed, peak-normalised, 16 kHz mono 16-bit.
      sox([raw, '-r', String(SR), '-c', '1', '-b', '16', '-e', 'signed-integer', clean, 'silence', '1', '0.005', '-50d', 'reverse', 'silence', '1', '0.005', '-50d', 'reverse', 'norm', '-3']);
      const n = Number(execFileSync('soxi', ['-s', clean], { timeout: 10_000 }).toString().trim());
      times.push({ startSeconds: samples / SR, endSeconds: (samples + n) / SR });
      samples += n + Math.round(pauseSeconds * SR);
      parts.push(clean, i < turns.length - 1 ? pause : edge);
    });
    const partial = path.join(tmp, 'call.wav');
    sox([...parts, partial]);
    fs.writeFileSync(timesFile, JSON.stringify(times));
    fs.renameSync(partial, out);
    return { wavPath: out, turns: times };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
