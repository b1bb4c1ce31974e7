// Real-voice test set: two-party calls and one-voice recordings assembled from recordings of real
// people that Debian ships, with known turns, in the truth format of the synthetic corpus
// (/work/shared/corpus, README "truth.json") so its scorer (score.mjs) works unchanged.
//
//   node --import tsx test/support/real-voices.ts [--force] [ID...]   render into .cache/real-voices
//
// Sources (installed by `scripts/bootstrap.sh --test`; no audio is committed):
//   asterisk-core-sounds-{en,fr,it,ru}-g722  telephony prompts read by four people, 16 kHz G.722:
//     `allison` (en_US, female), `june` (fr_CA, female), `carlo` (it_IT, male), `irina` (ru_RU,
//     female, the package's "IvrvoiceRU"); their English text is core-sounds-en.txt from
//     asterisk-core-sounds-en (the other languages say the same prompts in their language).
//   ktuberling-data  single words recorded by volunteers at 44.1 kHz, one person per language
//     (`tux-en`, `tux-de`): the short-answer party.
// For speaker separation the language does not matter. Each party gets its own "microphone"
// (sox EQ, band limits and level) so the parties differ in channel as well as voice, as on a
// phone recording of a real call. Every file has both parties on one channel.
//
// Output per call, .cache/real-voices/<id>/: mono16k.wav (master, 16 kHz 16-bit), phone8k.wav
// (white noise ~-50 dBFS, 300-3400 Hz, 8 kHz, mu-law round trip, 16-bit PCM, as the corpus),
// call.m4a (AAC 32 kbit/s), call.mp3 (MP3 32 kbit/s), truth.json. Cached under a key of this file
// and the tool versions (.key); renders go to a temporary folder renamed into place, so
// concurrent callers are safe and a second render is a no-op.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const realVoicesOut = path.resolve(process.env.REAL_VOICES_OUT ?? path.join(root, '.cache/real-voices'));

const ASTERISK = '/usr/share/asterisk/sounds';
const ASTERISK_TEXT = '/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz';
const TUX = '/usr/share/ktuberling/sounds';
const SR = 16000;
const LEAD = 0.3;
const TAIL = 0.5;
/** Pause between two clips inside one turn (a breath), seconds. */
const IN_TURN_GAP = 0.2;

/** Debian packages the set is built from (also in scripts/bootstrap.sh --test). */
export const REAL_VOICE_PACKAGES = [
  'asterisk-core-sounds-en',
  'asterisk-core-sounds-en-g722',
  'asterisk-core-sounds-fr-g722',
  'asterisk-core-sounds-it-g722',
  'asterisk-core-sounds-ru-g722',
  'ktuberling-data',
];

type Voice = 'allison' | 'june' | 'carlo' | 'irina' | 'tux-en' | 'tux-de';
const VOICE_DIR: Record<Voice, string> = {
  allison: `${ASTERISK}/en_US_f_Allison`,
  june: `${ASTERISK}/fr_CA_f_June`,
  carlo: `${ASTERISK}/it_IT_m_Carlo`,
  irina: `${ASTERISK}/ru_RU_f_IvrvoiceRU`,
  'tux-en': `${TUX}/en`,
  'tux-de': `${TUX}/de`,
};
const VOICE_LANGUAGE: Record<Voice, string> = { allison: 'en', june: 'fr', carlo: 'it', irina: 'ru', 'tux-en': 'en', 'tux-de': 'de' };

/** sox effects standing for a microphone and its level (after trimming, before mixing). */
const MICS = {
  /** close studio microphone, full band, loud */
  studio: ['norm', '-3'],
  /** handset: no lows, presence peak, band-limited, 6 dB down */
  handset: ['highpass', '250', 'lowpass', '3800', 'equalizer', '1800', '1q', '6', 'norm', '-9'],
  /** desk microphone at arm's length: boomy, dull, quiet */
  desk: ['highpass', '80', 'equalizer', '220', '1q', '6', 'lowpass', '5000', 'norm', '-15'],
  /** cheap headset: thin, 12 dB down */
  headset: ['highpass', '400', 'lowpass', '6500', 'equalizer', '3000', '2q', '4', 'norm', '-12'],
} as const;
type Mic = keyof typeof MICS;

interface Party { voice: Voice; mic: Mic; role: 'USER' | 'CONTACT'; name: string | null }
/** A turn is one or more clips of its speaker: prompt names (asterisk) or word names (ktuberling). */
interface TurnDef { speaker: 'A' | 'B'; clips: string[] }
export interface RealVoiceCall {
  id: string;
  title: string;
  kind: 'two-party' | 'one-voice';
  note: string;
  user: { displayName: string };
  upload: { contactName: string | null; phoneNumber: string | null; direction: 'INCOMING' | 'OUTGOING'; recordedAt: string };
  speakers: { A: Party; B?: Party };
  turns: TurnDef[];
}

// Names in user/upload are what a user of the app would have entered; the audio does not say them.
export const REAL_VOICE_CALLS: RealVoiceCall[] = [
  {
    id: 'rv-allison-carlo',
    title: 'Two prompt readers, woman and man, balanced turns',
    kind: 'two-party',
    note: 'female en (studio) / male it (handset)',
    user: { displayName: 'Dana Whitfield' },
    upload: { contactName: 'Marco Bellini', phoneNumber: null, direction: 'OUTGOING', recordedAt: '2026-11-10T15:00:00Z' },
    speakers: { A: { voice: 'allison', mic: 'studio', role: 'USER', name: 'Dana Whitfield' }, B: { voice: 'carlo', mic: 'handset', role: 'CONTACT', name: 'Marco Bellini' } },
    turns: [
      { speaker: 'A', clips: ['agent-alreadyon'] },
      { speaker: 'B', clips: ['conf-getconfno'] },
      { speaker: 'A', clips: ['dir-instr'] },
      { speaker: 'B', clips: ['followme/sorry', 'conf-onlyone'] },
      { speaker: 'A', clips: ['demo-thanks'] },
      { speaker: 'B', clips: ['vm-intro'] },
      { speaker: 'A', clips: ['priv-introsaved'] },
      { speaker: 'B', clips: ['auth-incorrect'] },
      { speaker: 'A', clips: ['queue-youarenext'] },
      { speaker: 'B', clips: ['dictate/record_help'] },
    ],
  },
  {
    id: 'rv-allison-june',
    title: 'Two women, different microphones and levels',
    kind: 'two-party',
    note: 'female en (desk, -15 dB) / female fr (studio)',
    user: { displayName: 'Priya Raman' },
    upload: { contactName: 'Northwind Dental', phoneNumber: '+15550104477', direction: 'INCOMING', recordedAt: '2026-11-11T16:30:00Z' },
    speakers: { A: { voice: 'june', mic: 'studio', role: 'CONTACT', name: null }, B: { voice: 'allison', mic: 'desk', role: 'USER', name: 'Priya Raman' } },
    turns: [
      { speaker: 'A', clips: ['agent-user'] },
      { speaker: 'B', clips: ['confbridge-pin'] },
      { speaker: 'A', clips: ['vm-forward'] },
      { speaker: 'B', clips: ['pbx-invalidpark'] },
      { speaker: 'A', clips: ['dir-usingkeypad'] },
      { speaker: 'B', clips: ['ss-noservice'] },
      { speaker: 'A', clips: ['privacy-unident'] },
      { speaker: 'B', clips: ['agent-incorrect'] },
      { speaker: 'A', clips: ['demo-nomatch', 'followme/status'] },
      { speaker: 'B', clips: ['vm-invalid-password'] },
    ],
  },
  {
    id: 'rv-allison-tux-short',
    title: 'A prompt reader and a person answering in single words into a desk microphone',
    kind: 'two-party',
    note: 'female en (studio) long turns / en words (desk), about 10 % of the speech',
    user: { displayName: 'Owen Okafor' },
    upload: { contactName: 'Bayview Clinic', phoneNumber: null, direction: 'OUTGOING', recordedAt: '2026-11-12T17:00:00Z' },
    speakers: { A: { voice: 'allison', mic: 'studio', role: 'CONTACT', name: null }, B: { voice: 'tux-en', mic: 'desk', role: 'USER', name: 'Owen Okafor' } },
    turns: [
      { speaker: 'A', clips: ['agent-alreadyon', 'conf-getchannel'] },
      { speaker: 'B', clips: ['hat', 'coat'] },
      { speaker: 'A', clips: ['dir-instr', 'demo-thanks'] },
      { speaker: 'B', clips: ['umbrella', 'shoe'] },
      { speaker: 'A', clips: ['vm-intro', 'followme/sorry'] },
      { speaker: 'B', clips: ['ball', 'stick'] },
      { speaker: 'A', clips: ['priv-introsaved', 'pbx-invalidpark'] },
      { speaker: 'B', clips: ['sunglasses', 'moustache'] },
      { speaker: 'A', clips: ['queue-youarenext', 'dictate/record_help'] },
      { speaker: 'B', clips: ['flower', 'spectacles'] },
      { speaker: 'A', clips: ['confbridge-pin'] },
    ],
  },
  {
    id: 'rv-carlo-tux-short',
    title: 'A man reading prompts over a handset, a woman answering in single words',
    kind: 'two-party',
    note: 'male it (handset) long turns / de words (headset), about 10 % of the speech',
    user: { displayName: 'Lena Vogel' },
    upload: { contactName: 'Harbor Clinic', phoneNumber: null, direction: 'INCOMING', recordedAt: '2026-11-13T14:15:00Z' },
    speakers: { A: { voice: 'carlo', mic: 'handset', role: 'CONTACT', name: null }, B: { voice: 'tux-de', mic: 'headset', role: 'USER', name: 'Lena Vogel' } },
    turns: [
      { speaker: 'A', clips: ['agent-user', 'conf-invalid'] },
      { speaker: 'B', clips: ['ball', 'coat'] },
      { speaker: 'A', clips: ['dir-usingkeypad', 'vm-forward'] },
      { speaker: 'B', clips: ['hat', 'tie'] },
      { speaker: 'A', clips: ['dictate/both_help'] },
      { speaker: 'B', clips: ['umbrella', 'shorts'] },
      { speaker: 'A', clips: ['demo-enterkeywords', 'ss-noservice'] },
      { speaker: 'B', clips: ['flower', 'skirt'] },
      { speaker: 'A', clips: ['vm-invalid-password', 'followme/options'] },
      { speaker: 'B', clips: ['nose', 'mouth'] },
    ],
  },
  {
    id: 'rv-june-irina',
    title: 'Two women over different lines, one 12 dB quieter',
    kind: 'two-party',
    note: 'female fr (studio) / female ru (headset, -12 dB)',
    user: { displayName: 'Sofia Marchetti' },
    upload: { contactName: null, phoneNumber: '+15550107321', direction: 'INCOMING', recordedAt: '2026-11-14T18:45:00Z' },
    speakers: { A: { voice: 'irina', mic: 'headset', role: 'CONTACT', name: null }, B: { voice: 'june', mic: 'studio', role: 'USER', name: 'Sofia Marchetti' } },
    turns: [
      { speaker: 'A', clips: ['confbridge-rest-list-vol-in'] },
      { speaker: 'B', clips: ['agent-alreadyon'] },
      { speaker: 'A', clips: ['followme/status'] },
      { speaker: 'B', clips: ['confbridge-pin'] },
      { speaker: 'A', clips: ['demo-thanks'] },
      { speaker: 'B', clips: ['auth-incorrect'] },
      { speaker: 'A', clips: ['vm-forwardoptions'] },
      { speaker: 'B', clips: ['privacy-prompt', 'conf-onlyperson'] },
      { speaker: 'A', clips: ['dictate/enter_filename'] },
      { speaker: 'B', clips: ['demo-enterkeywords'] },
    ],
  },
  {
    id: 'rv-irina-carlo-numbers',
    title: 'A woman reading prompts, a man answering with numbers',
    kind: 'two-party',
    note: 'female ru (studio) long turns / male it digits (desk), short answers',
    user: { displayName: 'Tomas Reyes' },
    upload: { contactName: 'Aurelio Conti', phoneNumber: null, direction: 'OUTGOING', recordedAt: '2026-11-15T15:20:00Z' },
    speakers: { A: { voice: 'irina', mic: 'studio', role: 'USER', name: 'Tomas Reyes' }, B: { voice: 'carlo', mic: 'desk', role: 'CONTACT', name: 'Aurelio Conti' } },
    turns: [
      { speaker: 'A', clips: ['agent-alreadyon', 'conf-getchannel'] },
      { speaker: 'B', clips: ['digits/7', 'digits/4'] },
      { speaker: 'A', clips: ['dir-instr'] },
      { speaker: 'B', clips: ['digits/3', 'digits/9'] },
      { speaker: 'A', clips: ['vm-intro', 'queue-youarenext'] },
      { speaker: 'B', clips: ['digits/12', 'digits/8'] },
      { speaker: 'A', clips: ['dictate/both_help', 'pbx-invalid'] },
      { speaker: 'B', clips: ['digits/5', 'digits/2', 'digits/6'] },
      { speaker: 'A', clips: ['demo-enterkeywords'] },
    ],
  },
  {
    id: 'rv-voicemail-allison',
    title: 'Voicemail: one woman',
    kind: 'one-voice',
    note: 'female en (desk), one voice',
    user: { displayName: 'Dana Whitfield' },
    upload: { contactName: null, phoneNumber: '+15550109988', direction: 'INCOMING', recordedAt: '2026-11-16T19:00:00Z' },
    speakers: { A: { voice: 'allison', mic: 'desk', role: 'CONTACT', name: null } },
    turns: [
      { speaker: 'A', clips: ['agent-alreadyon', 'dir-instr'] },
      { speaker: 'A', clips: ['vm-intro', 'demo-thanks'] },
      { speaker: 'A', clips: ['priv-introsaved', 'queue-youarenext', 'dictate/record_help'] },
      { speaker: 'A', clips: ['ss-noservice', 'pbx-invalidpark'] },
    ],
  },
  {
    id: 'rv-dictation-carlo',
    title: 'Dictation: one man',
    kind: 'one-voice',
    note: 'male it (handset), one voice',
    user: { displayName: 'Marco Bellini' },
    upload: { contactName: null, phoneNumber: null, direction: 'OUTGOING', recordedAt: '2026-11-17T09:30:00Z' },
    speakers: { A: { voice: 'carlo', mic: 'handset', role: 'USER', name: 'Marco Bellini' } },
    turns: [
      { speaker: 'A', clips: ['agent-user', 'conf-invalid', 'dir-usingkeypad'] },
      { speaker: 'A', clips: ['vm-forward', 'dictate/both_help'] },
      { speaker: 'A', clips: ['demo-enterkeywords', 'ss-noservice', 'followme/options'] },
      { speaker: 'A', clips: ['vm-invalid-password', 'demo-thanks'] },
    ],
  },
  {
    id: 'rv-voicemail-june',
    title: 'Voicemail: one woman over a headset',
    kind: 'one-voice',
    note: 'female fr (headset), one voice',
    user: { displayName: 'Priya Raman' },
    upload: { contactName: null, phoneNumber: '+15550102233', direction: 'INCOMING', recordedAt: '2026-11-18T12:10:00Z' },
    speakers: { A: { voice: 'june', mic: 'headset', role: 'CONTACT', name: null } },
    turns: [
      { speaker: 'A', clips: ['agent-user', 'vm-forward'] },
      { speaker: 'A', clips: ['dir-usingkeypad', 'privacy-unident'] },
      { speaker: 'A', clips: ['demo-nomatch', 'followme/status', 'confbridge-pin'] },
      { speaker: 'A', clips: ['vm-invalid-password', 'auth-incorrect'] },
    ],
  },
];

export const REAL_VOICE_FILES = ['mono16k.wav', 'phone8k.wav', 'call.m4a', 'call.mp3'] as const;
export type RealVoiceFile = (typeof REAL_VOICE_FILES)[number];

export interface RealVoiceTruth {
  id: string;
  title: string;
  kind: 'two-party' | 'one-voice';
  user: { displayName: string };
  upload: RealVoiceCall['upload'];
  speakers: Record<string, { name: string | null; role: 'USER' | 'CONTACT'; voice: string; mic: Mic }>;
  sampleRate: number;
  durationSamples: number;
  durationSeconds: number;
  turns: Array<{ index: number; speaker: 'A' | 'B'; role: 'USER' | 'CONTACT'; text: string; language: string; clips: string[]; startSeconds: number; endSeconds: number; startSample: number; endSample: number; gapAfterSeconds: number }>;
  expect: { naming: { situation: string; expectedNames: { USER: Array<string | null>; CONTACT: Array<string | null> } } };
  render: { version: number; sources: string; leadInSeconds: number; tailSeconds: number };
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, maxBuffer: 64 << 20 }).toString();
const sox = (...args: string[]) => run('sox', ['-R', '-D', '-V1', ...args]);
const ff = (...args: string[]) => run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-threads', '1', ...args]);
const samplesOf = (wav: string) => Number(run('soxi', ['-s', wav]).trim());

let promptText: Map<string, string> | null = null;
/** English text of an asterisk prompt (core-sounds-en.txt; subfolder prompts are "dir/name: ..."). */
function asteriskText(name: string): string {
  if (!promptText) {
    promptText = new Map();
    for (const line of zlib.gunzipSync(fs.readFileSync(ASTERISK_TEXT)).toString('utf8').split('\n')) {
      const m = /^([\w/.-]+):\s*(.+)$/.exec(line.trim());
      if (m) promptText.set(m[1], m[2].trim());
    }
  }
  const digit = /^digits\/(\d+)$/.exec(name);
  if (digit) return NUMBER_WORDS[Number(digit[1])] ?? digit[1];
  const t = promptText.get(name);
  if (!t) throw new Error(`real-voices: no text for prompt ${name}`);
  return t;
}
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

function clipSource(voice: Voice, clip: string): { file: string; text: string; g722: boolean } {
  if (voice.startsWith('tux-')) {
    // ktuberling words: theme_word.ogg; the spoken word is the part after the theme.
    return { file: `${VOICE_DIR[voice]}/${clip}.ogg`, text: clip.replace(/^[a-z]+_/, '').replace(/_/g, ' '), g722: false };
  }
  return { file: `${VOICE_DIR[voice]}/${clip}.g722`, text: asteriskText(clip), g722: true };
}

/** Gap after turn i, 0.25-0.90 s in 10 ms steps from sha256("<id>/<i>") (as the corpus). */
function gapSeconds(id: string, i: number): number {
  const h = createHash('sha256').update(`${id}/${i}`).digest();
  return (25 + (h.readUInt32BE(0) % 66)) / 100;
}

function toolVersions(): string {
  return [run('sox', ['--version']).trim(), run('ffmpeg', ['-version']).split('\n')[0]].join('|');
}

function cacheKey(call: RealVoiceCall): string {
  return createHash('sha256').update(fs.readFileSync(fileURLToPath(import.meta.url))).update(JSON.stringify(call)).update(toolVersions()).digest('hex').slice(0, 16);
}

/** Whether the Debian packages the set needs are installed. */
export function realVoicesAvailable(): boolean {
  return fs.existsSync(ASTERISK_TEXT) && fs.existsSync(`${VOICE_DIR.carlo}/agent-user.g722`) && fs.existsSync(`${VOICE_DIR['tux-de']}/ball.ogg`) && fs.existsSync(`${VOICE_DIR.irina}/vm-intro.g722`) && fs.existsSync(`${VOICE_DIR.june}/vm-intro.g722`);
}

function renderOne(call: RealVoiceCall, key: string): void {
  fs.mkdirSync(realVoicesOut, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(realVoicesOut, `.tmp-${call.id}-`));
  try {
    const silence = (file: string, seconds: number) => sox('-r', String(SR), '-c', '1', '-n', '-b', '16', '-e', 'signed-integer', file, 'trim', '0', `${Math.round(seconds * SR)}s`);
    const parts: string[] = [path.join(tmp, 'lead.wav')];
    silence(parts[0], LEAD);
    let pos = Math.round(LEAD * SR);
    const turns: RealVoiceTruth['turns'] = [];
    call.turns.forEach((turn, i) => {
      const party = call.speakers[turn.speaker]!;
      const pieces: string[] = [];
      const texts: string[] = [];
      turn.clips.forEach((clip, c) => {
        const src = clipSource(party.voice, clip);
        const raw = path.join(tmp, `raw${i}_${c}.wav`);
        ff(...(src.g722 ? ['-f', 'g722'] : []), '-i', src.file, '-ac', '1', '-ar', String(SR), '-c:a', 'pcm_s16le', raw);
        // Trim the recording's own leading and trailing silence so truth times are speech.
        const trimmed = path.join(tmp, `clip${i}_${c}.wav`);
        sox(raw, trimmed, 'silence', '1', '0.01', '-45d', 'reverse', 'silence', '1', '0.01', '-45d', 'reverse');
        if (c > 0) {
          const g = path.join(tmp, `in${i}_${c}.wav`);
          silence(g, IN_TURN_GAP);
          pieces.push(g);
        }
        pieces.push(trimmed);
        texts.push(src.text);
      });
      // One microphone chain per turn: the same party always sounds the same.
      const joined = path.join(tmp, `joined${i}.wav`);
      if (pieces.length > 1) sox(...pieces, joined);
      else fs.copyFileSync(pieces[0], joined);
      const turnWav = path.join(tmp, `turn${i}.wav`);
      sox(joined, '-b', '16', '-e', 'signed-integer', turnWav, ...MICS[party.mic]);
      const n = samplesOf(turnWav);
      const gap = i < call.turns.length - 1 ? gapSeconds(call.id, i) : 0;
      turns.push({
        index: i,
        speaker: turn.speaker,
        role: party.role,
        text: texts.join(' '),
        language: VOICE_LANGUAGE[party.voice],
        clips: turn.clips,
        startSeconds: pos / SR,
        endSeconds: (pos + n) / SR,
        startSample: pos,
        endSample: pos + n,
        gapAfterSeconds: gap,
      });
      parts.push(turnWav);
      pos += n;
      if (gap > 0) {
        const g = path.join(tmp, `gap${i}.wav`);
        silence(g, gap);
        parts.push(g);
        pos += Math.round(gap * SR);
      }
    });
    const tail = path.join(tmp, 'tail.wav');
    silence(tail, TAIL);
    parts.push(tail);
    pos += Math.round(TAIL * SR);

    const out = path.join(tmp, 'final');
    fs.mkdirSync(out);
    const master = path.join(out, 'mono16k.wav');
    sox(...parts, master);
    if (samplesOf(master) !== pos) throw new Error(`real-voices: ${call.id}: sample count mismatch`);
    // Telephone tier exactly as the synthetic corpus renders it.
    const noise = path.join(tmp, 'noise.wav');
    sox('-r', String(SR), '-c', '1', '-n', '-b', '16', '-e', 'signed-integer', noise, 'synth', `${pos}s`, 'whitenoise', 'vol', '0.005');
    const noisy = path.join(tmp, 'noisy.wav');
    sox('-m', '-v', '1', master, '-v', '1', noise, noisy);
    const ulaw = path.join(tmp, 'ulaw.wav');
    sox(noisy, '-r', '8000', '-e', 'u-law', '-b', '8', ulaw, 'sinc', '300-3400');
    sox(ulaw, '-e', 'signed-integer', '-b', '16', path.join(out, 'phone8k.wav'));
    const bitexact = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact'];
    ff('-i', master, ...bitexact, '-c:a', 'aac', '-b:a', '32k', '-movflags', '+faststart', path.join(out, 'call.m4a'));
    ff('-i', master, ...bitexact, '-c:a', 'libmp3lame', '-b:a', '32k', path.join(out, 'call.mp3'));

    const speakers: RealVoiceTruth['speakers'] = {};
    for (const [k, p] of Object.entries(call.speakers)) if (p) speakers[k] = { name: p.name, role: p.role, voice: p.voice, mic: p.mic };
    const nameOf = (role: 'USER' | 'CONTACT') => Object.values(call.speakers).find((p) => p?.role === role)?.name ?? null;
    const truth: RealVoiceTruth = {
      id: call.id,
      title: call.title,
      kind: call.kind,
      user: call.user,
      upload: call.upload,
      speakers,
      sampleRate: SR,
      durationSamples: pos,
      durationSeconds: pos / SR,
      turns,
      // The recordings never say the parties' names, so naming can only come from metadata.
      expect: { naming: { situation: 'no_names', expectedNames: { USER: [call.user.displayName, nameOf('USER')], CONTACT: [nameOf('CONTACT'), call.upload.contactName, null] } } },
      render: { version: 1, sources: REAL_VOICE_PACKAGES.join(' '), leadInSeconds: LEAD, tailSeconds: TAIL },
    };
    fs.writeFileSync(path.join(out, 'truth.json'), JSON.stringify(truth, null, 2) + '\n');
    fs.writeFileSync(path.join(out, '.key'), key + '\n');
    const dest = path.join(realVoicesOut, call.id);
    const old = fs.existsSync(dest) ? fs.mkdtempSync(path.join(realVoicesOut, `.old-${call.id}-`)) : null;
    if (old) fs.renameSync(dest, path.join(old, 'x'));
    try {
      fs.renameSync(out, dest);
    } catch (e) {
      // Another process rendered the same call at the same time: theirs is as good as ours.
      if (!fs.existsSync(path.join(dest, 'truth.json'))) throw e;
    }
    if (old) fs.rmSync(old, { recursive: true, force: true });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Renders the set (cached, idempotent) and returns its folder. Throws when the packages are missing. */
export function ensureRealVoices(ids: string[] = [], { force = false } = {}): string {
  if (!realVoicesAvailable()) throw new Error(`real-voices: install the Debian packages ${REAL_VOICE_PACKAGES.join(' ')} (scripts/bootstrap.sh --test)`);
  for (const call of REAL_VOICE_CALLS) {
    if (ids.length && !ids.includes(call.id)) continue;
    const key = cacheKey(call);
    const keyFile = path.join(realVoicesOut, call.id, '.key');
    if (!force && fs.existsSync(keyFile) && fs.readFileSync(keyFile, 'utf8').trim() === key) continue;
    renderOne(call, key);
  }
  return realVoicesOut;
}

export function loadRealVoiceTruth(id: string): RealVoiceTruth {
  return JSON.parse(fs.readFileSync(path.join(ensureRealVoices([id]), id, 'truth.json'), 'utf8'));
}

export function realVoiceFile(id: string, file: RealVoiceFile): string {
  return path.join(ensureRealVoices([id]), id, file);
}

/** Share of speech per speaker (truth turn time), e.g. { A: 0.9, B: 0.1 }. */
export function speechShares(truth: RealVoiceTruth): Record<string, number> {
  const total = truth.turns.reduce((s, t) => s + t.endSeconds - t.startSeconds, 0);
  const out: Record<string, number> = {};
  for (const t of truth.turns) out[t.speaker] = (out[t.speaker] ?? 0) + (t.endSeconds - t.startSeconds) / total;
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const ids = args.filter((a) => !a.startsWith('--'));
  const t0 = Date.now();
  ensureRealVoices(ids, { force });
  for (const call of REAL_VOICE_CALLS) {
    if (ids.length && !ids.includes(call.id)) continue;
    const t = loadRealVoiceTruth(call.id);
    const shares = Object.entries(speechShares(t)).map(([k, v]) => `${k} ${(v * 100).toFixed(0)} %`).join(', ');
    console.log(`${call.id.padEnd(26)} ${call.kind.padEnd(9)} ${t.durationSeconds.toFixed(1).padStart(5)} s  ${String(t.turns.length).padStart(2)} turns  ${shares}  (${call.note})`);
  }
  console.log(`rendered into ${realVoicesOut} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
