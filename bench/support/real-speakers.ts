// Real speakers for fitting and scoring the voice matcher, all from Debian packages
// (scripts/bootstrap.sh --test; --bench for the training-only sources): the asterisk-core-sounds-*
// and asterisk-prompt-* readers, the ktuberling-data word readers, the klettres-data letter readers
// and the tuxpaint-stamps-default stamp-name readers. The split below is FIXED: speakers in TRAINING_SPEAKERS fit everything
// (projection, cohort, thresholds: bench/fit-voice.ts); only HELD_OUT_SPEAKERS are scored
// (bench/voice-real.ts). Never move a speaker between the lists without refitting and saying so.
//
// Assumption, not checked by ear: each ktuberling language folder is read by one person and no two
// folders share a reader (the four Serbian folders are byte-identical, so they count once), and the
// asterisk Spanish prompts are Allison, the English reader (the package names the folder
// es_MX_f_Allison): both languages are one speaker.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../test/support/corpus.js';
import { REAL_VOICE_CALLS } from '../../test/support/real-voices.js';

const ASTERISK = '/usr/share/asterisk/sounds';
const TUX = '/usr/share/ktuberling/sounds';
const KLETTRES = '/usr/share/klettres';
/**
 * KLettres (klettres-data) letter and syllable readers whose language is none of the held-out
 * speakers': en, en_GB, de and uk are left out because their readers may be the KDE contributors who
 * read the held-out ktuberling languages (tux-en, tux-de, tux-uk), which nobody checked by ear.
 */
const KLETTRES_LANGS = ['ar', 'cs', 'da', 'es', 'fr', 'he', 'hu', 'it', 'lt', 'ml', 'nb', 'nds', 'nl', 'pt_BR', 'ru', 'tn'];
/**
 * Tux Paint stamp descriptions (tuxpaint-stamps-default): each stamp's name spoken in many languages
 * (`<stamp>_desc_<lang>.ogg`), a word or two a file, about 1 s. Languages and folders chosen by a
 * median-pitch estimate per file (2026-11-26, not by ear), so that each speaker is likely one reader:
 * fr, ru and bg male (medians 144 / 135 / 129 Hz), ro, es, be and el female (242 / 258 / 250 / 212
 * Hz). Left out: da, whose reader sounds like the KLettres Low German reader (klet-nds): v4 scored
 * the two at cosine 0.75, within the same-speaker range (training speakers' two 15 s stretches:
 * 0.58-0.94) and above every other pair of training speakers (at most 0.63); the folders animals
 * (its French files mix a male and a higher voice: two readers, or more), town (Danish files with no
 * pitch at all) and symbols (letters repeated as filled / outlined copies); lt and nl (under a minute each, Lithuanian two pitch groups), en (under a minute), ca (may
 * be the held-out ktuberling Catalan reader). ro, es and be, three female voices of similar pitch,
 * are likely three people: v4 scores each pair at most 0.33.
 */
const TUXPAINT = '/usr/share/tuxpaint/stamps';
const TUXPAINT_FOLDERS = ['clothes', 'food', 'household', 'seasonal', 'space', 'vehicles'];
const TUXPAINT_LANGS = ['fr', 'ru', 'ro', 'bg', 'es', 'be', 'el'];
/** Speakers whose folders are searched recursively for file names of this form (the others: every recording directly in the folder). */
const FILE_PATTERN: Record<string, RegExp> = Object.fromEntries(TUXPAINT_LANGS.map((l) => [`tp-${l}`, new RegExp(`_desc_${l}\\.ogg$`)]));
export const SR = 16000;

/** Folders of each real speaker. */
export const SPEAKER_SOURCES: Record<string, string[]> = {
  allison: [`${ASTERISK}/en_US_f_Allison`, `${ASTERISK}/es_MX_f_Allison`],
  june: [`${ASTERISK}/fr_CA_f_June`],
  carlo: [`${ASTERISK}/it_IT_m_Carlo`],
  irina: [`${ASTERISK}/ru_RU_f_IvrvoiceRU`],
  ...Object.fromEntries(
    ['ca', 'da', 'de', 'el', 'en', 'es', 'fi', 'fr', 'ga', 'gl', 'it', 'lt', 'nds', 'nl', 'nn', 'pt', 'ro', 'ru', 'sl', 'sr', 'sv', 'uk', 'wa'].map((l) => [`tux-${l}`, [`${TUX}/${l}`]]),
  ),
  ...Object.fromEntries(KLETTRES_LANGS.map((l) => [`klet-${l}`, [`${KLETTRES}/${l}/alpha`, `${KLETTRES}/${l}/syllab`]])),
  // Further asterisk voices (8 kHz GSM or WAV prompts): asterisk-prompt-es-co (a Colombian reader),
  // asterisk-prompt-fr-armelle (Armelle Desjardins), asterisk-prompt-it-menardi-wav (Menardi).
  'ast-es-co': [`${ASTERISK}/es`],
  'ast-fr-armelle': [`${ASTERISK}/fr`],
  'ast-it-menardi': [`${ASTERISK}/it_IT_f_Menardi`],
  ...Object.fromEntries(TUXPAINT_LANGS.map((l) => [`tp-${l}`, TUXPAINT_FOLDERS.map((d) => `${TUXPAINT}/${d}`)])),
};

/**
 * Speakers that might be one person share a group, and cross-validation folds never split a group:
 * a ktuberling and a KLettres reader of one language may be the same KDE contributor (unchecked by
 * ear), so they are kept on the same side of every fold.
 */
export function speakerGroup(speaker: string): string {
  const m = /^(?:tux|klet|tp)-([a-z]+)/.exec(speaker);
  return m ? `lang-${m[1]}` : speaker;
}

/**
 * Scored, never fitted on: the four asterisk readers and the two word readers of the project's
 * real-voice calls (test/support/real-voices.ts), plus two more word readers with enough speech to
 * enrol.
 */
export const HELD_OUT_SPEAKERS = ['allison', 'june', 'carlo', 'irina', 'tux-en', 'tux-de', 'tux-ca', 'tux-uk'] as const;
/** Fit the projection, the score-normalisation cohort and the decision thresholds. */
export const TRAINING_SPEAKERS = [
  'tux-da', 'tux-el', 'tux-fr', 'tux-gl', 'tux-lt', 'tux-nn', 'tux-ru', 'tux-sl', 'tux-wa', 'tux-es', 'tux-fi', 'tux-ga', 'tux-it', 'tux-nds', 'tux-nl', 'tux-pt', 'tux-ro', 'tux-sr', 'tux-sv',
  ...KLETTRES_LANGS.map((l) => `klet-${l}`),
  'ast-es-co', 'ast-fr-armelle', 'ast-it-menardi',
  ...TUXPAINT_LANGS.map((l) => `tp-${l}`),
] as const;

for (const s of [...HELD_OUT_SPEAKERS, ...TRAINING_SPEAKERS]) if (!SPEAKER_SOURCES[s]) throw new Error(`unknown speaker ${s}`);
if (HELD_OUT_SPEAKERS.some((s) => (TRAINING_SPEAKERS as readonly string[]).includes(s))) throw new Error('speaker split overlaps');
if (HELD_OUT_SPEAKERS.some((h) => (TRAINING_SPEAKERS as readonly string[]).some((t) => speakerGroup(t) === speakerGroup(h)))) throw new Error('a training speaker may be a held-out one');

/**
 * A training speaker's folder that resolves into a held-out speaker's folder. Debian's
 * `/usr/share/asterisk/sounds/{es,fr,it}` are alternatives links that point at Allison's, June's
 * and Carlo's folders (all held-out) until asterisk-prompt-es-co / -fr-armelle replace them with
 * their own folders (`scripts/bootstrap.sh --bench`): without those packages `ast-es-co` and
 * `ast-fr-armelle` would silently read held-out voices into the fit.
 */
export function heldOutLeak(speaker: string, resolve: (p: string) => string = (p) => (fs.existsSync(p) ? fs.realpathSync(p) : p)): string | null {
  if ((HELD_OUT_SPEAKERS as readonly string[]).includes(speaker)) return null;
  const heldOut = HELD_OUT_SPEAKERS.flatMap((h) => SPEAKER_SOURCES[h].map(resolve));
  for (const dir of SPEAKER_SOURCES[speaker] ?? []) {
    const real = resolve(dir);
    const hit = heldOut.find((h) => real === h || real.startsWith(`${h}/`));
    if (hit) return `${dir} is ${hit}`;
  }
  return null;
}

/** sox effects standing for a microphone and its level (the chains of test/support/real-voices.ts). */
export const MICS = {
  studio: ['norm', '-3'],
  handset: ['highpass', '250', 'lowpass', '3800', 'equalizer', '1800', '1q', '6', 'norm', '-9'],
  desk: ['highpass', '80', 'equalizer', '220', '1q', '6', 'lowpass', '5000', 'norm', '-15'],
  headset: ['highpass', '400', 'lowpass', '6500', 'equalizer', '3000', '2q', '4', 'norm', '-12'],
} as const;
export type Mic = keyof typeof MICS;
export const MIC_NAMES = Object.keys(MICS) as Mic[];

export const ENCODINGS = ['16 kHz', 'm4a', '8 kHz phone'] as const;
export type Encoding = (typeof ENCODINGS)[number];

const cacheDir = path.join(projectRoot, '.cache/voice-real/utterances');
const run = (cmd: string, args: string[], input?: Buffer) => execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'], timeout: 120_000, maxBuffer: 256 << 20 });

/** The speaker's recordings (sorted paths); asterisk prompts used by the real-voice calls come last. */
export function utteranceFiles(speaker: string): string[] {
  const leak = heldOutLeak(speaker);
  if (leak) throw new Error(`training speaker ${speaker} would read a held-out voice: ${leak}; install the packages of scripts/bootstrap.sh --bench`);
  const used = new Set(REAL_VOICE_CALLS.flatMap((c) => c.turns.flatMap((t) => t.clips)));
  const files: string[] = [];
  const pattern = FILE_PATTERN[speaker];
  for (const dir of SPEAKER_SOURCES[speaker]) {
    if (!fs.existsSync(dir)) continue; // e.g. a KLettres language without syllables
    if (pattern) {
      const found = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => pattern.test(f));
      files.push(...found.sort().map((f) => path.join(dir, f)));
      continue;
    }
    for (const f of fs.readdirSync(dir).sort()) {
      if (!/\.(g722|gsm|ogg|wav|opus)$/.test(f)) continue;
      if (/^(digits|letters|phonetic)/.test(f)) continue;
      files.push(path.join(dir, f));
    }
  }
  const isUsed = (f: string) => used.has(path.basename(f).replace(/\.\w+$/, ''));
  return [...files.filter((f) => !isUsed(f)), ...files.filter(isUsed)];
}

/** One recording at 16 kHz with its leading and trailing silence removed (cached). */
export function utterance(file: string): Float32Array {
  const key = createHash('sha256').update(file).digest('hex').slice(0, 20);
  const out = path.join(cacheDir, `${key}.f32`);
  if (!fs.existsSync(out)) {
    fs.mkdirSync(cacheDir, { recursive: true });
    const raw = run('ffmpeg', ['-nostdin', '-loglevel', 'error', ...(file.endsWith('.g722') ? ['-f', 'g722'] : file.endsWith('.gsm') ? ['-f', 'gsm'] : []), '-i', file, '-ac', '1', '-ar', String(SR), '-f', 'f32le', 'pipe:1']);
    const trimmed = run('sox', ['-V1', '-t', 'raw', '-r', String(SR), '-e', 'floating-point', '-b', '32', '-c', '1', '-', '-t', 'raw', '-e', 'floating-point', '-b', '32', '-', 'silence', '1', '0.01', '-45d', 'reverse', 'silence', '1', '0.01', '-45d', 'reverse'], raw);
    fs.writeFileSync(`${out}.${process.pid}`, trimmed);
    fs.renameSync(`${out}.${process.pid}`, out);
  }
  const b = fs.readFileSync(out);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4).slice();
}

/** Consecutive utterances from `files`, 0.2 s apart, until `seconds` of speech; returns the next index. */
export function takeSpeech(files: string[], from: number, seconds: number): { pcm: Float32Array; next: number; speechSeconds: number } {
  const parts: Float32Array[] = [];
  let speech = 0;
  let i = from;
  for (; i < files.length && speech < seconds; i++) {
    const u = utterance(files[i]);
    if (u.length < 0.15 * SR) continue;
    parts.push(u, new Float32Array(0.2 * SR));
    speech += u.length / SR;
  }
  const pcm = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    pcm.set(p, at);
    at += p.length;
  }
  return { pcm, next: i, speechSeconds: speech };
}

const rawArgs = ['-t', 'raw', '-r', String(SR), '-e', 'floating-point', '-b', '32', '-c', '1'];
const toF32 = (b: Buffer) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4).slice();
const asBuffer = (x: Float32Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

/** The speech through a microphone chain. */
export function throughMic(pcm: Float32Array, mic: Mic): Float32Array {
  return toF32(run('sox', ['-V1', ...rawArgs, '-', ...rawArgs, '-', ...MICS[mic]], asBuffer(pcm)));
}

/** Deterministic white noise (xorshift) at `amplitude` peak, as the corpus' telephone tier adds. */
function addNoise(pcm: Float32Array, amplitude: number, seed: number): Float32Array {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = pcm[i] + amplitude * (((s >>> 0) / 4294967296) * 2 - 1);
  }
  return out;
}

/** The speech as the pipeline would see it after the given encoding, back at 16 kHz. */
export function encode(pcm: Float32Array, encoding: Encoding, seed = 1): Float32Array {
  if (encoding === '16 kHz') return pcm;
  if (encoding === 'm4a') {
    const aac = run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'f32le', '-ar', String(SR), '-ac', '1', '-i', 'pipe:0', '-c:a', 'aac', '-b:a', '32k', '-f', 'adts', 'pipe:1'], asBuffer(pcm));
    return toF32(run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'aac', '-i', 'pipe:0', '-ac', '1', '-ar', String(SR), '-f', 'f32le', 'pipe:1'], aac));
  }
  // Telephone tier as test/support/real-voices.ts renders phone8k.wav: noise, 300-3400 Hz, 8 kHz mu-law.
  const noisy = addNoise(pcm, 0.005 * Math.sqrt(3), seed);
  const ulaw = run('sox', ['-V1', ...rawArgs, '-', '-t', 'wav', '-r', '8000', '-e', 'u-law', '-b', '8', '-', 'sinc', '300-3400'], asBuffer(noisy));
  return toF32(run('sox', ['-V1', '-t', 'wav', '-', ...rawArgs, '-'], ulaw));
}
