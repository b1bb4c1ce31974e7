// A local stand-in for an OpenAI-compatible /v1/audio/transcriptions server that "recognises"
// instantly: each stretch of sound in the uploaded file becomes one word. It decodes what it is
// sent with ffmpeg, refuses files over a size limit like the hosted services do, and lets a test
// decide how each request is answered.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const OPENAI_FILE_LIMIT_BYTES = 25_000_000;

export interface SoundRegion {
  start: number;
  end: number;
}

/** Stretches of sound in 16-bit samples: 10 ms frames above a fixed level, gaps under 150 ms bridged, blips under 100 ms dropped. */
export function soundRegions(pcm: Int16Array, sampleRate: number): SoundRegion[] {
  const hop = Math.round(sampleRate / 100);
  // Whole frames throughout, so the same sound gives the same regions wherever a file starts on the grid.
  const frames: Array<[number, number]> = [];
  let open: [number, number] | null = null;
  for (let f = 0; (f + 1) * hop <= pcm.length; f++) {
    let e = 0;
    for (let i = f * hop; i < (f + 1) * hop; i++) e += pcm[i] * pcm[i];
    if (e / hop <= 300 * 300) continue;
    if (open && f - open[1] < 15) open[1] = f + 1;
    else {
      if (open) frames.push(open);
      open = [f, f + 1];
    }
  }
  if (open) frames.push(open);
  return frames.filter(([a, b]) => b - a >= 10).map(([a, b]) => ({ start: a / 100, end: b / 100 }));
}

/** 16 kHz mono 16-bit samples of any audio file, through ffmpeg. */
export function decodeToPcm(file: string): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    execFile('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', file, '-ac', '1', '-ar', '16000', '-f', 's16le', '-'], { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(new Int16Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 2));
    });
  });
}

export interface RecognizerRequest {
  fileName: string;
  fileSize: number;
  mime: string;
  /** The part's index from its file name (`part-007.flac` is 7). */
  part: number;
  /** 1 for the first request of a part, 2 for its first retry, ... */
  attempt: number;
  pcm: Int16Array;
}

export type Answer = { status: number; body: unknown };

export interface MockRecognizer {
  baseUrl: string;
  requests: Array<Omit<RecognizerRequest, 'pcm'> & { status: number }>;
  close(): Promise<void>;
}

/**
 * Starts the server. `answer` receives each accepted request (file within the limit) and returns
 * the response; by default every sound region becomes the word `word`.
 */
export async function startMockRecognizer(answer?: (req: RecognizerRequest) => Answer | Promise<Answer>): Promise<MockRecognizer> {
  const requests: MockRecognizer['requests'] = [];
  const attempts = new Map<number, number>();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mock-asr-'));
  let seq = 0;
  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      const file = form.get('file');
      if (!file || typeof file === 'string') return send(400, { error: { code: 'missing_file' } });
      const part = Number(/part-(\d+)/.exec(file.name)?.[1] ?? -1);
      const attempt = (attempts.get(part) ?? 0) + 1;
      attempts.set(part, attempt);
      const entry = { fileName: file.name, fileSize: file.size, mime: file.type, part, attempt, status: 0 };
      requests.push(entry);
      if (file.size > OPENAI_FILE_LIMIT_BYTES) {
        entry.status = 413;
        return send(413, { error: { code: 'file_too_large', message: 'Maximum content size limit exceeded' } });
      }
      const local = path.join(tmp, `${seq++}-${path.basename(file.name)}`);
      fs.writeFileSync(local, Buffer.from(await file.arrayBuffer()));
      let pcm: Int16Array;
      try {
        pcm = await decodeToPcm(local);
      } finally {
        fs.rmSync(local, { force: true });
      }
      const r = answer ? await answer({ ...entry, pcm }) : { status: 200, body: wordsBody(soundRegions(pcm, 16000).map((x) => ({ ...x, word: 'word' }))) };
      entry.status = r.status;
      send(r.status, r.body);
    } catch {
      send(500, { error: { code: 'mock_failure' } });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** A verbose_json body with word timestamps. */
export function wordsBody(words: Array<{ word: string; start: number; end: number }>): unknown {
  return {
    task: 'transcribe',
    language: 'english',
    text: words.map((w) => w.word).join(' '),
    words: words.map((w) => ({ word: ` ${w.word}`, start: Math.round(w.start * 1000) / 1000, end: Math.round(w.end * 1000) / 1000 })),
  };
}
