// Voice-profile samples for tests, made the way bench/voice.ts makes its enrollment samples: flite
// speaks Harvard sentences (none occurs in the corpus dialogues) in one of the corpus voices, sox
// converts like the corpus render (16 kHz mono 16-bit, pauses trimmed, -3 dBFS peak), and the
// result is cut to an exact duration and re-encoded with sox or ffmpeg when a test needs it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type FliteVoice = 'slt' | 'kal16' | 'rms' | 'awb';
export type SampleFormat = 'wav' | 'mp3' | 'm4a' | 'ogg';

// Harvard sentences (IEEE 1969), lists 5 to 8: text-independent of the calls and of the bench.
const HARVARD = [
  'A king ruled the state in the early days. The ship was torn apart on the sharp reef. Sickness kept him home the third week. The wide road shimmered in the hot sun.',
  'The lazy cow lay in the cool grass. Lift the square stone over the fence. The rope will bind the seven books at once. Hop over the fence and plunge in.',
  'The friendly gang left the drug store. Mesh wire keeps chicks inside. The frosty air passed through the coat. The crooked maze failed to fool the mouse.',
  'Adding fast leads to wrong sums. The show was a flop from the very start. A saw is a tool used for making boards. The wagon moved on well oiled wheels.',
  'March the soldiers past the next hill. A cup of sugar makes sweet fudge. Place a rosebush near the porch steps. Both lost their lives in the raging storm.',
];

/** Spoken text of `lists` Harvard lists (four sentences each), starting at list `offset` (wrapping). */
export function harvardText(offset = 0, lists = 3): string {
  const out: string[] = [];
  for (let i = 0; i < lists; i++) out.push(HARVARD[(offset + i) % HARVARD.length]);
  return out.join(' ');
}

function seconds(file: string): number {
  return Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }).trim());
}

/** The flite rendering of `text` in `voice`, converted like the corpus (16 kHz mono 16-bit, trimmed, -3 dBFS). */
export function synthesizeSpeech(dir: string, voice: FliteVoice, text: string, name: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const txt = path.join(dir, `${name}.txt`);
  const raw = path.join(dir, `${name}.raw.wav`);
  const out = path.join(dir, `${name}.wav`);
  fs.writeFileSync(txt, text + '\n');
  execFileSync('flite', ['-voice', voice, '-f', txt, '-o', raw]);
  execFileSync('sox', ['-R', '-D', '-V1', raw, '-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer', out,
    'silence', '1', '0.005', '-50d', 'reverse', 'silence', '1', '0.005', '-50d', 'reverse', 'norm', '-3']);
  fs.rmSync(raw);
  fs.rmSync(txt);
  return out;
}

export interface SampleOptions {
  /** Exact duration of the result; speech is cut (or, if too short, padded with silence at the end). */
  seconds: number;
  format?: SampleFormat;
  /** Which Harvard lists to speak (different offsets give different sentences). */
  textOffset?: number;
  /** WAV only: output sample rate, channels and bits, to make large files of a valid duration. */
  sampleRate?: number;
  channels?: number;
  bits?: 16 | 32;
  name?: string;
}

/** A voice sample of exactly `opts.seconds` in the requested container. */
export function voiceSample(dir: string, voice: FliteVoice, opts: SampleOptions): string {
  const name = opts.name ?? `${voice}-${opts.textOffset ?? 0}-${opts.seconds}s-${opts.sampleRate ?? 16000}-${opts.channels ?? 1}-${opts.bits ?? 16}`;
  const format = opts.format ?? 'wav';
  const out = path.join(dir, `${name}.${format}`);
  if (fs.existsSync(out)) return out;
  // Enough speech for the requested length: add Harvard lists until the rendering is long enough.
  // Renderings are kept in `dir` and shared by the samples cut from them.
  const speechOf = (lists: number) => {
    const base = `speech-${voice}-${opts.textOffset ?? 0}-${lists}`;
    const file = path.join(dir, `${base}.wav`);
    return fs.existsSync(file) ? file : synthesizeSpeech(dir, voice, harvardText(opts.textOffset ?? 0, lists), base);
  };
  let lists = 2;
  let speech = speechOf(lists);
  while (seconds(speech) < opts.seconds && lists < 12) {
    lists += 2;
    speech = speechOf(lists);
  }
  const wav = format === 'wav' ? out : path.join(dir, `${name}.cut.wav`);
  const rateArgs = ['-r', String(opts.sampleRate ?? 16000), '-c', String(opts.channels ?? 1), '-b', String(opts.bits ?? 16), '-e', (opts.bits ?? 16) === 32 ? 'floating-point' : 'signed-integer'];
  execFileSync('sox', ['-V1', speech, ...rateArgs, wav, 'pad', '0', String(opts.seconds), 'trim', '0', String(opts.seconds)]);
  if (format !== 'wav') {
    const codec = format === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '64k'] : format === 'm4a' ? ['-c:a', 'aac', '-b:a', '64k'] : ['-c:a', 'libvorbis', '-q:a', '3'];
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', wav, ...codec, out]);
    fs.rmSync(wav);
  }
  return out;
}
