// Voice enrolments make their embedding on the API process's event loop (about 0.65 s of CPU for a
// two-minute sample with the embedded embedder; eight at once stalled the loop 4.7 s). The
// per-user upload cap bounds one user; accounts are cheap, so the process also takes the
// enrolments' CPU work one at a time, letting the event loop answer other requests between them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, tempDir, uploadForm, type TestService } from '../support/service.js';
import { voiceSample } from '../support/voices.js';
import type { SpeakerEmbedder } from '../../src/pipeline/types.js';

describe('voice enrolments of many users share the process one embedding at a time', () => {
  let t: TestService;
  let active = 0;
  let mostAtOnce = 0;
  const sample = voiceSample(tempDir('voice-load-'), 'rms', { seconds: 8 });

  before(async () => {
    t = await startTestService({ env: { WORKER_ENABLED: 'false', SERVICE_MAX_UPLOADS_IN_FLIGHT: '10', SERVICE_VOICE_SAMPLE_MIN_SECONDS: '5', SERVICE_VOICE_SAMPLE_MAX_SECONDS: '30' } });
    const real = t.service.ctx.embedder;
    // The real embedder, made to last a little longer than one turn of the event loop, so that
    // embeddings running side by side are seen as such.
    const watched: SpeakerEmbedder = {
      provider: real.provider,
      async embed(samples, sampleRate, regions) {
        active++;
        mostAtOnce = Math.max(mostAtOnce, active);
        try {
          await new Promise((r) => setTimeout(r, 50));
          return await real.embed(samples, sampleRate, regions);
        } finally {
          active--;
        }
      },
    };
    (t.service.ctx as { embedder: SpeakerEmbedder }).embedder = watched;
  });
  after(async () => {
    await t?.stop();
  });

  test('six enrolments sent at once are all made, never two embeddings at once', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.request('POST', '/api/users/me/voice-profile', { form: uploadForm(sample, undefined, {}, 'sample.wav', 'audio/wav') })));
    assert.deepEqual(answers.map((a) => a.status), [201, 201, 201, 201, 201, 201], JSON.stringify(answers.map((a) => a.body)));
    assert.equal(mostAtOnce, 1);
  });
});
