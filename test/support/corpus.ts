// Locates the shared synthetic call corpus and renders its audio once into the project cache
// (render.sh is cached and idempotent, so concurrent test files may call ensureCorpus freely).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const corpusDir = path.resolve(process.env.CORPUS_DIR ?? path.join(projectRoot, '../shared/corpus'));
export const corpusOut = path.resolve(process.env.CORPUS_OUT ?? path.join(projectRoot, '.cache/corpus'));

export interface TruthTurn { index: number; speaker: 'A' | 'B'; role: 'USER' | 'CONTACT'; text: string; startSeconds: number; endSeconds: number }
export interface Truth {
  id: string;
  title: string;
  user: { displayName: string };
  upload: { contactName: string | null; phoneNumber: string | null; direction: 'INCOMING' | 'OUTGOING'; recordedAt: string };
  speakers: Record<'A' | 'B', { name: string | null; role: 'USER' | 'CONTACT'; voice: string }>;
  durationSeconds: number;
  turns: TruthTurn[];
  expect: any;
}

export function corpusIds(): string[] {
  return fs.readdirSync(path.join(corpusDir, 'dialogues')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
}

let renderedAll = false;
const renderedIds = new Set<string>();
/**
 * Renders the corpus audio (cached) and returns the output folder: the calls named, or the whole
 * corpus. It runs render.sh synchronously, and render.sh waits for any other process rendering
 * into the same folder, so in a file that starts a service, call it (or corpusFile/loadTruth)
 * before the service starts: a blocked event loop lets the service close an idle keep-alive
 * connection that the test's next request is already reusing (read ECONNRESET).
 */
export function ensureCorpus(ids: string[] = []): string {
  const wanted = ids.filter((id) => !renderedIds.has(id));
  if (!renderedAll && (ids.length === 0 || wanted.length > 0)) {
    fs.mkdirSync(corpusOut, { recursive: true });
    execFileSync('bash', [path.join(corpusDir, 'render.sh'), ...wanted], {
      env: { ...process.env, CORPUS_OUT: corpusOut },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (ids.length === 0) renderedAll = true;
    for (const id of wanted) renderedIds.add(id);
  }
  return corpusOut;
}

export function loadTruth(id: string): Truth {
  return JSON.parse(fs.readFileSync(path.join(ensureCorpus([id]), id, 'truth.json'), 'utf8'));
}

export function corpusFile(id: string, file: 'mono16k.wav' | 'stereo.wav' | 'phone8k.wav' | 'call.m4a' | 'call.mp3' | 'call.ogg' | 'call.aac'): string {
  return path.join(ensureCorpus([id]), id, file);
}

/** The corpus scorer module (score.mjs) loaded dynamically. */
export async function loadScorer(): Promise<{
  scoreTranscript: (truth: unknown, transcript: unknown) => any;
  summarize: (results: any[]) => any;
  normalizeText: (s: string) => string[];
  perfectTranscript: (truth: unknown) => any;
}> {
  return import(path.join(corpusDir, 'score.mjs'));
}

/** Runs one corpus call's audio file through the pipeline's speech stage, named from its truth. */
export async function transcribeCorpusCall(
  pipeline: import('../../src/pipeline/index.js').Pipeline,
  id: string,
  file: Parameters<typeof corpusFile>[1],
  opts: TranscribeOptions = {},
): Promise<import('../../src/pipeline/speech.js').SpeechResult> {
  return transcribeTruthAudio(pipeline, corpusFile(id, file), loadTruth(id), opts);
}

export interface TranscribeOptions {
  /** Runs before the work folder (the decoded audio the result's PcmSources read) is removed. */
  whileDecoded?: (result: import('../../src/pipeline/speech.js').SpeechResult) => Promise<void>;
}

/** Runs an audio file with a truth in the corpus format (corpus or real-voice set) through the speech stage. */
export async function transcribeTruthAudio(
  pipeline: import('../../src/pipeline/index.js').Pipeline,
  audioPath: string,
  truth: Pick<Truth, 'id' | 'user' | 'upload'>,
  opts: TranscribeOptions = {},
): Promise<import('../../src/pipeline/speech.js').SpeechResult> {
  const { transcribeCall } = await import('../../src/pipeline/speech.js');
  fs.mkdirSync(corpusOut, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(corpusOut, '..', `speech-${truth.id}-`));
  try {
    const result = await transcribeCall(pipeline, {
      callId: '00000000-0000-4000-8000-000000000000',
      audioPath,
      workDir,
      maxAudioSeconds: 3600,
      voiceProfile: null,
      // as the service's transcribe stage does: the user's and the contact's names
      vocabulary: [truth.user.displayName, truth.upload.contactName].filter((n): n is string => !!n),
      context: {
        userDisplayName: truth.user.displayName,
        contactName: truth.upload.contactName,
        phoneNumber: truth.upload.phoneNumber,
        direction: truth.upload.direction,
        voiceEmbeddingEnabled: false,
      },
    });
    await opts.whileDecoded?.(result);
    return result;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
