// The web console's weight and its long-call path, measured in a real browser (Debian's chromium
// through playwright-core): the compressed JavaScript and CSS the calls page loads first, and what a
// 3-hour call's page downloads before it plays (the audio streams by range requests and the
// waveform comes from stored peaks, so it must be a small part of the file).
//   node --import tsx bench/console.ts        → docs/bench/console.md
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { chromium, type Page } from 'playwright-core';
import { startTestService, tempDir } from '../test/support/service.js';
import { insertArtifact, insertCall, transcriptFor } from '../test/fixtures/seed.js';
import { PEAKS_PER_SECOND } from '../src/pipeline/audio/peaks.js';
import { waveformKey } from '../src/store/blobs.js';
import { table, writeSection } from './support/harness.js';
import { provenanceLine, startProvenance } from './support/provenance.js';

const LONG_SECONDS = 3 * 3600;
const BUDGET_BYTES = 150 * 1024;

/** Bytes on the wire (compressed) per resource type while `action` runs. */
async function transferred(page: Page, action: () => Promise<void>): Promise<{ byType: Record<string, number>; byUrl: Map<string, number> }> {
  const byType: Record<string, number> = {};
  const byUrl = new Map<string, number>();
  const pending: Array<Promise<void>> = [];
  const onFinished = (req: import('playwright-core').Request) => {
    pending.push(
      req.sizes().then((s) => {
        const type = req.resourceType();
        byType[type] = (byType[type] ?? 0) + s.responseBodySize;
        byUrl.set(req.url(), (byUrl.get(req.url()) ?? 0) + s.responseBodySize);
      }),
    );
  };
  page.on('requestfinished', onFinished);
  await action();
  await page.waitForLoadState('networkidle');
  page.off('requestfinished', onFinished);
  await Promise.all(pending);
  return { byType, byUrl };
}

const provenance = startProvenance('a fresh embedded database; a seeded 3-hour call (AAC 16 kbit/s noise, 50 peaks/s)', 'not-applicable');
const work = tempDir('cas-bench-console-');
const longAudio = path.join(work, 'long.m4a');
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `anoisesrc=d=${LONG_SECONDS}:c=pink:a=0.05:r=16000`, '-ac', '1', '-c:a', 'aac', '-b:a', '16k', longAudio], { timeout: 600_000 });
const audioBytes = fs.statSync(longAudio).size;

const t = await startTestService({ env: { WORKER_ENABLED: 'false' } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--autoplay-policy=no-user-gesture-required'] });
try {
  const user = (await t.request('GET', '/api/users/me')).body.id as string;
  const callId = await insertCall(t, user, { title: 'Three-hour call' });
  const transcript = transcriptFor(callId);
  transcript.durationSeconds = LONG_SECONDS;
  await insertArtifact(t, user, callId, 'transcript', transcript);
  const key = `users/${user}/calls/${callId}/audio.m4a`;
  await t.service.ctx.blobs.put(key, fs.createReadStream(longAudio));
  await t.service.ctx.database.db.updateTable('calls').set({ audioKey: key, audioFormat: 'm4a', audioBytes, durationSeconds: LONG_SECONDS }).where('id', '=', callId).execute();
  const peaks = Buffer.alloc(LONG_SECONDS * PEAKS_PER_SECOND);
  for (let i = 0; i < peaks.length; i++) peaks[i] = 40 + ((i * 7919) % 120);
  await t.service.ctx.blobs.put(waveformKey(user, callId), Readable.from([peaks]));

  const page = await browser.newPage();
  const first = await transferred(page, async () => {
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
  });

  const started = Date.now();
  let playingAfterMs = 0;
  const long = await transferred(page, async () => {
    await page.goto(`${t.url}/calls/${callId}`);
    await page.locator('audio').waitFor({ state: 'attached' });
    await page.locator('.waveform canvas, .waveform div').first().waitFor({ state: 'attached' });
    // Seek to two hours in and play: a range request, not the file up to there.
    await page.evaluate(() => {
      const a = (globalThis as any).document.querySelector('audio');
      a.currentTime = 7200;
      return a.play();
    });
    await page.waitForFunction(() => (globalThis as any).document.querySelector('audio').currentTime > 7201, undefined, { timeout: 60_000 });
    playingAfterMs = Date.now() - started;
    await page.evaluate(() => (globalThis as any).document.querySelector('audio').pause());
  });
  const audioFetched = [...long.byUrl].filter(([u]) => u.includes('/audio')).reduce((n, [, b]) => n + b, 0);
  const waveformFetched = [...long.byUrl].filter(([u]) => u.includes('/waveform')).reduce((n, [, b]) => n + b, 0);
  const kb = (b: number) => `${(b / 1024).toFixed(1)} kB`;
  const js = first.byType.script ?? 0;
  const css = first.byType.stylesheet ?? 0;
  const p = provenance.finish();
  writeSection(
    'console',
    `## Web console\n\n` +
      table(
        ['measure', 'value', 'target'],
        [
          ['calls page, first load: JavaScript (compressed, on the wire)', kb(js), `< ${kb(BUDGET_BYTES)}: ${js < BUDGET_BYTES ? 'met' : 'NOT met'}`],
          ['calls page, first load: CSS', kb(css), ''],
          ['calls page, first load: HTML', kb(first.byType.document ?? 0), ''],
          ['3-hour call: file size', kb(audioBytes), ''],
          ['3-hour call: audio downloaded to play from 2:00:00', `${kb(audioFetched)} (${((100 * audioFetched) / audioBytes).toFixed(1)} % of the file)`, 'a small part of the file'],
          ['3-hour call: waveform downloaded', kb(waveformFetched), ''],
          ['3-hour call: page opened to playing at 2:00:00', `${(playingAfterMs / 1000).toFixed(1)} s`, ''],
        ],
      ) +
      `\n\n${provenanceLine(p, 'npm run bench:console')}\n`,
  );
  console.log(`calls page JS ${kb(js)}; 3-hour call audio fetched ${kb(audioFetched)} of ${kb(audioBytes)}; playing after ${playingAfterMs} ms`);
} finally {
  await browser.close();
  await t.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
