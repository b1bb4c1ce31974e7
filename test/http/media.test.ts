// The routes a browser's media elements read: the call's audio with HTTP range requests (RFC 9110),
// the waveform from peaks stored at decoding, and the media session cookie that stands in for the
// Authorization header on those read routes only.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { seedCompletedCall } from '../fixtures/seed.js';
import { ArrayPcm } from '../../src/pipeline/audio/pcm.js';
import { computePeaks, PEAKS_PER_SECOND } from '../../src/pipeline/audio/peaks.js';
import { waveformKey } from '../../src/store/blobs.js';
import { resolveRange } from '../../src/domain/byte-range.js';

describe('byte ranges', () => {
  test('single ranges, suffixes, open ends and what is ignored', () => {
    assert.deepEqual(resolveRange(undefined, 1000), { kind: 'whole' });
    assert.deepEqual(resolveRange('bytes=0-99', 1000), { kind: 'partial', range: { start: 0, end: 99 } });
    assert.deepEqual(resolveRange('bytes=900-', 1000), { kind: 'partial', range: { start: 900, end: 999 } });
    assert.deepEqual(resolveRange('bytes=990-5000', 1000), { kind: 'partial', range: { start: 990, end: 999 } });
    assert.deepEqual(resolveRange('bytes=-10', 1000), { kind: 'partial', range: { start: 990, end: 999 } });
    assert.deepEqual(resolveRange('bytes=-5000', 1000), { kind: 'partial', range: { start: 0, end: 999 } });
    assert.deepEqual(resolveRange('bytes=1000-', 1000), { kind: 'unsatisfiable' });
    assert.deepEqual(resolveRange('bytes=-0', 1000), { kind: 'unsatisfiable' });
    // Several ranges, another unit, an inverted or malformed range: the whole file.
    for (const h of ['bytes=0-1,5-6', 'items=0-1', 'bytes=50-10', 'bytes=x-y', 'bytes=-']) assert.deepEqual(resolveRange(h, 1000), { kind: 'whole' }, h);
  });
});

describe('waveform peaks', () => {
  test('one byte per 20 ms, the loudest sample of each stretch', async () => {
    const sr = 16000;
    const samples = new Float32Array(sr * 3);
    // One second of silence, one of a half-scale tone, one of full scale.
    for (let i = sr; i < 2 * sr; i++) samples[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / sr);
    for (let i = 2 * sr; i < 3 * sr; i++) samples[i] = Math.sin((2 * Math.PI * 440 * i) / sr);
    const peaks = await computePeaks(new ArrayPcm(samples, sr));
    assert.equal(peaks.length, 3 * PEAKS_PER_SECOND);
    assert.ok(peaks.subarray(0, 50).every((p) => p === 0));
    assert.ok(peaks.subarray(50, 100).every((p) => Math.abs(p - 127) <= 2), String(peaks.subarray(50, 100)));
    assert.ok(peaks.subarray(100, 150).every((p) => p >= 252));
  });
});

for (const mode of await dbModes()) {
  describe(`call audio, waveform and media session (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'media-a' }, b: { sub: 'media-b' } });
    const audio = crypto.randomBytes(10_000);
    let callId = '';

    before(async () => {
      callId = await seedCompletedCall(t, t.userA);
      const key = `users/${t.userA}/calls/${callId}/audio.m4a`;
      await t.service.ctx.blobs.put(key, Readable.from([audio]));
      await t.service.ctx.database.db.updateTable('calls').set({ audioKey: key, audioFormat: 'm4a', audioBytes: audio.length }).where('id', '=', callId).execute();
      const pcm = new Float32Array(16000 * 4).map((_, i) => 0.8 * Math.sin(i / 10));
      await t.service.ctx.blobs.put(waveformKey(t.userA, callId), Readable.from([Buffer.from(await computePeaks(new ArrayPcm(pcm, 16000)))]));
    });

    const get = (p: string, headers: Record<string, string> = {}) => fetch(`${t.url}${p}`, { headers });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    test('the whole recording, then ranges with 206 and Content-Range, then a range past the end', async () => {
      const whole = await get(`/api/calls/${callId}/audio`, bearer(t.tokenA));
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-type'), 'audio/mp4');
      assert.equal(whole.headers.get('accept-ranges'), 'bytes');
      assert.equal(whole.headers.get('content-length'), String(audio.length));
      assert.deepEqual(Buffer.from(await whole.arrayBuffer()), audio);

      const part = await get(`/api/calls/${callId}/audio`, { ...bearer(t.tokenA), range: 'bytes=1000-1999' });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 1000-1999/${audio.length}`);
      assert.equal(part.headers.get('content-length'), '1000');
      assert.deepEqual(Buffer.from(await part.arrayBuffer()), audio.subarray(1000, 2000));

      const tail = await get(`/api/calls/${callId}/audio`, { ...bearer(t.tokenA), range: 'bytes=-16' });
      assert.equal(tail.status, 206);
      assert.deepEqual(Buffer.from(await tail.arrayBuffer()), audio.subarray(audio.length - 16));

      const past = await get(`/api/calls/${callId}/audio`, { ...bearer(t.tokenA), range: `bytes=${audio.length}-` });
      assert.equal(past.status, 416);
      assert.equal(past.headers.get('content-range'), `bytes */${audio.length}`);
      assert.equal(((await past.json()) as any).error.code, 'range_not_satisfiable');
    });

    test('another user\'s call, and a call without a waveform, are 404', async () => {
      for (const p of [`/api/calls/${callId}/audio`, `/api/calls/${callId}/waveform`]) {
        const r = await get(p, bearer(t.tokenB));
        assert.equal(r.status, 404, p);
        assert.equal(((await r.json()) as any).error.code, 'call_not_found');
      }
      const bare = await seedCompletedCall(t, t.userA);
      const r = await get(`/api/calls/${bare}/waveform`, bearer(t.tokenA));
      assert.equal(r.status, 404);
      assert.equal(((await r.json()) as any).error.code, 'waveform_not_found');
    });

    test('the waveform is reduced to the points asked for', async () => {
      const r = await get(`/api/calls/${callId}/waveform?points=40`, bearer(t.tokenA));
      assert.equal(r.status, 200);
      const body = (await r.json()) as any;
      assert.equal(body.durationSeconds, 4);
      assert.equal(body.peaks.length, 40);
      assert.equal(body.pointsPerSecond, 10);
      assert.ok(body.peaks.every((p: number) => Math.abs(p - 0.8) < 0.01), JSON.stringify(body.peaks));
      assert.equal((await get(`/api/calls/${callId}/waveform?points=0`, bearer(t.tokenA))).status, 400);
    });

    test('a media session cookie reads the audio, waveform and export of its user, and nothing else', async () => {
      const s = await fetch(`${t.url}/api/session`, { method: 'POST', headers: bearer(t.tokenA) });
      assert.equal(s.status, 200);
      const setCookie = s.headers.get('set-cookie') ?? '';
      assert.match(setCookie, /^cas_media=[^;]+; Max-Age=900; Path=\/api; HttpOnly; SameSite=Strict$/);
      const cookie = setCookie.split(';')[0];
      assert.ok(Date.parse(((await s.json()) as any).expiresAt) > Date.now());

      // Read routes that accept it: no Authorization header needed.
      assert.equal((await get(`/api/calls/${callId}/audio`, { cookie, range: 'bytes=0-9' })).status, 206);
      assert.equal((await get(`/api/calls/${callId}/waveform`, { cookie })).status, 200);
      assert.equal((await get(`/api/calls/${callId}/transcript?format=txt`, { cookie })).status, 200);
      // It is the user's own session: another user's call stays 404.
      const other = await seedCompletedCall(t, t.userB);
      assert.equal((await get(`/api/calls/${other}/transcript?format=txt`, { cookie })).status, 404);
      // Every other route, and every write, still needs the header.
      assert.equal((await get('/api/calls', { cookie })).status, 401);
      assert.equal((await fetch(`${t.url}/api/calls/${callId}`, { method: 'DELETE', headers: { cookie } })).status, 401);
      assert.equal((await fetch(`${t.url}/api/session`, { method: 'POST', headers: { cookie } })).status, 401);
      // A forged or tampered cookie is refused.
      const [name, value] = cookie.split('=');
      const tampered = `${name}=${value.slice(0, -3)}${value.endsWith('AAA') ? 'BBB' : 'AAA'}`;
      assert.equal((await get(`/api/calls/${callId}/audio`, { cookie: tampered })).status, 401);
      assert.equal((await get(`/api/calls/${callId}/audio`, { cookie: 'cas_media=eyJhbGciOiJub25lIn0.e30.' })).status, 401);

      const sessionB = await fetch(`${t.url}/api/session`, { method: 'POST', headers: bearer(t.tokenB) });
      const cookieB = (sessionB.headers.get('set-cookie') ?? '').split(';')[0];
      const end = await fetch(`${t.url}/api/session`, { method: 'DELETE', headers: bearer(t.tokenA) });
      assert.equal(end.status, 204);
      assert.match(end.headers.get('set-cookie') ?? '', /^cas_media=; Max-Age=0/);
      // Ending the session ends the cookie itself, not only this browser's copy of it.
      assert.equal((await get(`/api/calls/${callId}/audio`, { cookie, range: 'bytes=0-9' })).status, 401);
      assert.equal((await get(`/api/calls/${callId}/waveform`, { cookie })).status, 401);
      // The other user's session was not touched; a session started afterwards works again.
      assert.equal((await get(`/api/calls/${other}/transcript?format=txt`, { cookie: cookieB })).status, 200);
      const again = await fetch(`${t.url}/api/session`, { method: 'POST', headers: bearer(t.tokenA) });
      const fresh = (again.headers.get('set-cookie') ?? '').split(';')[0];
      assert.equal((await get(`/api/calls/${callId}/waveform`, { cookie: fresh })).status, 200);
    });
  });
}
