// Uploads in flight, as a hostile client would hold them (issue 22, finding 4): a dozen uploads
// opened at once that never send a byte, a body trickled one byte at a time, a body that stops
// half-way, a client that goes away. Each must end within the configured limits, answer the error
// body, free its slot and leave no file behind; other users must not notice.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { dbModes, tempDir } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';

const CRLF = '\r\n';
const work = tempDir('cas-containment-');
const wavPath = path.join(work, 'call.wav');
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', '-ac', '1', wavPath]);
const wav = fs.readFileSync(wavPath);

const MAX_IN_FLIGHT = 3;
const IDLE_SECONDS = 2;
const TOTAL_SECONDS = 6;

interface RawAnswer {
  status: number | null;
  headers: string;
  body: any;
  /** Milliseconds from the first byte sent to the socket's close. */
  closedAfterMs: number;
}

/**
 * An upload on a raw socket: the request head and the start of a multipart body (the file part's
 * headers), then `body` decides what else is sent. Resolves with the answer when the server
 * closes the connection.
 */
function rawUpload(url: string, token: string, opts: { declaredBytes?: number; body?: (socket: net.Socket) => void; path?: string } = {}): { answer: Promise<RawAnswer>; socket: net.Socket } {
  const u = new URL(url);
  const boundary = 'containment-boundary';
  const head = `--${boundary}${CRLF}Content-Disposition: form-data; name="file"; filename="call.wav"${CRLF}Content-Type: audio/wav${CRLF}${CRLF}`;
  const socket = net.connect(Number(u.port), u.hostname);
  const started = Date.now();
  const answer = new Promise<RawAnswer>((resolve) => {
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const [headers, ...rest] = data.split(`${CRLF}${CRLF}`);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(headers ?? '')?.[1];
      let body: unknown = rest.join(`${CRLF}${CRLF}`);
      try {
        body = JSON.parse(body as string);
      } catch {
        /* not JSON */
      }
      resolve({ status: status ? Number(status) : null, headers: headers ?? '', body, closedAfterMs: Date.now() - started });
    });
  });
  socket.on('connect', () => {
    socket.write(
      `POST ${opts.path ?? '/api/calls/analyze'} HTTP/1.1${CRLF}Host: ${u.host}${CRLF}Authorization: Bearer ${token}${CRLF}` +
        `Content-Type: multipart/form-data; boundary=${boundary}${CRLF}Content-Length: ${opts.declaredBytes ?? 200_000}${CRLF}${CRLF}${head}`,
    );
    opts.body?.(socket);
  });
  return { answer, socket };
}

function fullUploadBody(boundary: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}${CRLF}Content-Disposition: form-data; name="file"; filename="call.wav"${CRLF}Content-Type: audio/wav${CRLF}${CRLF}`),
    wav,
    Buffer.from(`${CRLF}--${boundary}--${CRLF}`),
  ]);
}

async function upload(url: string, token: string): Promise<{ status: number; body: any }> {
  const boundary = 'complete-boundary';
  const res = await fetch(`${url}/api/calls/analyze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: fullUploadBody(boundary),
  });
  return { status: res.status, body: await res.json() };
}

/** Every file under DATA_DIR/blobs/users (audio and partial files alike). */
function storedFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'blobs', 'users');
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? '', e.name));
}

for (const mode of await dbModes()) {
  // The bound turns the old behaviour (uploads held for ever) into a failure instead of a hang.
  describe(`uploads in flight are capped per user and cut when they stall (${mode} database)`, { timeout: 120_000 }, () => {
    const t = withTwoUsers(
      mode,
      { a: { sub: 'slow-a', email: 'slow-a@example.test' }, b: { sub: 'slow-b', email: 'slow-b@example.test' } },
      {
        env: {
          SERVICE_MAX_UPLOADS_IN_FLIGHT: String(MAX_IN_FLIGHT),
          UPLOAD_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS),
          UPLOAD_TIMEOUT_SECONDS: String(TOTAL_SECONDS),
          SERVICE_MAX_UPLOADS_PER_HOUR: '100',
          SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '100',
        },
      },
    );
    const slots = async () => Number((await t.service.ctx.database.db.selectFrom('uploadsInFlight').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

    test('twelve uploads opened at once that send nothing: the cap is held, the rest answer 429 at once, the held ones are cut at the idle limit', async () => {
      const opened = Array.from({ length: 12 }, () => rawUpload(t.url, t.tokenA));
      const answers = await Promise.all(opened.map((o) => o.answer));
      const refused = answers.filter((a) => a.status === 429);
      const cut = answers.filter((a) => a.status === 408);
      assert.equal(refused.length, 12 - MAX_IN_FLIGHT, `statuses: ${answers.map((a) => a.status).join(',')}`);
      assert.equal(cut.length, MAX_IN_FLIGHT);
      for (const a of refused) {
        assert.equal(a.body.error.code, 'uploads_in_flight_limit');
        assert.deepEqual(a.body.error.details, { limit: MAX_IN_FLIGHT, current: MAX_IN_FLIGHT });
      }
      for (const a of cut) {
        assert.equal(a.body.error.code, 'request_timeout');
        assert.equal(a.body.error.details.limit, 'idle');
        assert.match(a.headers, /connection: close/i);
        assert.ok(a.closedAfterMs >= IDLE_SECONDS * 1000 - 500 && a.closedAfterMs < (IDLE_SECONDS + 10) * 1000, `cut after ${a.closedAfterMs} ms`);
      }
      assert.equal(await slots(), 0, 'every slot released');
      assert.deepEqual(storedFiles(t.dataDir), [], 'nothing stored');
      // The slots are free again: a real upload goes through.
      assert.equal((await upload(t.url, t.tokenA)).status, 202);
    });

    test("one user's stalled uploads do not hold another user's", async () => {
      const held = Array.from({ length: MAX_IN_FLIGHT }, () => rawUpload(t.url, t.tokenA));
      for (let i = 0; i < 100 && (await slots()) < MAX_IN_FLIGHT; i++) await new Promise((r) => setTimeout(r, 20));
      const mine = rawUpload(t.url, t.tokenA);
      const other = upload(t.url, t.tokenB);
      assert.equal((await mine.answer).status, 429, 'A is at the cap');
      const b = await other;
      assert.equal(b.status, 202, JSON.stringify(b.body));
      await Promise.all(held.map((h) => h.answer));
    });

    test('a body trickled one byte at a time, never idle long enough, is cut at the total limit and leaves no file', async () => {
      const before = storedFiles(t.dataDir);
      let timer: NodeJS.Timeout | undefined;
      const trickle = rawUpload(t.url, t.tokenA, {
        body: (socket) => {
          let i = 0;
          timer = setInterval(() => {
            if (socket.destroyed) return clearInterval(timer);
            socket.write(wav.subarray(i, i + 1));
            i++;
          }, 250);
        },
      });
      const a = await trickle.answer;
      clearInterval(timer);
      assert.equal(a.status, 408);
      assert.equal(a.body.error.code, 'request_timeout');
      assert.equal(a.body.error.details.limit, 'total');
      assert.ok(a.closedAfterMs >= TOTAL_SECONDS * 1000 - 500 && a.closedAfterMs < (TOTAL_SECONDS + 10) * 1000, `cut after ${a.closedAfterMs} ms`);
      assert.equal(await slots(), 0);
      assert.deepEqual(storedFiles(t.dataDir), before, 'no partial file left');
    });

    test('a body that stops half-way through the audio is cut at the idle limit and its partial file removed', async () => {
      const before = storedFiles(t.dataDir);
      const half = rawUpload(t.url, t.tokenA, { body: (socket) => socket.write(wav.subarray(0, Math.floor(wav.length / 2))) });
      const a = await half.answer;
      assert.equal(a.status, 408);
      assert.equal(a.body.error.details.limit, 'idle');
      assert.equal(await slots(), 0);
      assert.deepEqual(storedFiles(t.dataDir), before, 'no partial file left');
    });

    test('a voice sample that stops half-way is cut at the idle limit and leaves no file', async () => {
      const before = storedFiles(t.dataDir);
      const half = rawUpload(t.url, t.tokenA, { path: '/api/users/me/voice-profile', body: (socket) => socket.write(wav.subarray(0, Math.floor(wav.length / 2))) });
      const a = await half.answer;
      assert.equal(a.status, 408);
      assert.equal(a.body.error.code, 'request_timeout');
      assert.deepEqual(storedFiles(t.dataDir), before, 'no sample left');
    });

    // Each enrolment decodes its sample with ffmpeg and embeds it on the API process's event loop
    // (about 0.6 s of CPU for a two-minute sample, during which no other request is answered), so
    // one user firing enrolments at once stalled every user: they hold upload slots too.
    test('voice samples sent at once share the upload cap: the rest answer 429 before any byte is read', async () => {
      const opened = Array.from({ length: MAX_IN_FLIGHT + 4 }, () => rawUpload(t.url, t.tokenA, { path: '/api/users/me/voice-profile' }));
      const answers = await Promise.all(opened.map((o) => o.answer));
      const refused = answers.filter((a) => a.status === 429);
      assert.equal(refused.length, 4, `statuses: ${answers.map((a) => a.status).join(',')}`);
      for (const a of refused) assert.equal(a.body.error.code, 'uploads_in_flight_limit');
      assert.equal(answers.filter((a) => a.status === 408).length, MAX_IN_FLIGHT);
      assert.equal(await slots(), 0, 'every slot released');
      // A call upload and a voice sample count together.
      const held = rawUpload(t.url, t.tokenA, { path: '/api/users/me/voice-profile' });
      // (the sample holds its slot before the calls arrive: on a loaded machine they raced it)
      for (let i = 0; i < 100 && (await slots()) < 1; i++) await new Promise((r) => setTimeout(r, 20));
      const calls = Array.from({ length: MAX_IN_FLIGHT }, () => rawUpload(t.url, t.tokenA));
      const callAnswers = await Promise.all(calls.map((o) => o.answer));
      assert.equal(callAnswers.filter((a) => a.status === 429).length, 1, `statuses: ${callAnswers.map((a) => a.status).join(',')}`);
      assert.equal((await held.answer).status, 408);
      assert.equal(await slots(), 0, 'every slot released');
    });

    test('a client that goes away mid-body frees its slot and leaves no file', async () => {
      const before = storedFiles(t.dataDir);
      const gone = rawUpload(t.url, t.tokenA, { body: (socket) => socket.write(wav.subarray(0, 4000), () => setTimeout(() => socket.destroy(), 200)) });
      await gone.answer;
      for (let i = 0; i < 50 && (await slots()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await slots(), 0);
      assert.deepEqual(storedFiles(t.dataDir), before, 'no partial file left');
    });
  });
}
