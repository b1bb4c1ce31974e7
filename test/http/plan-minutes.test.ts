// The plan's minute limit as a user with one minute left would try it (issue 22, finding 9): the
// ledger knows a call's length only once it completes, so calls still in processing must count
// too, with their measured length once decoded and a reservation before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { dbModes, tempDir, uploadForm } from '../support/service.js';
import { withIdpService } from '../support/two-users.js';

const work = tempDir('cas-minutes-');
const wavPath = path.join(work, 'call.wav');
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', '-ac', '1', wavPath]);

for (const mode of await dbModes()) {
  describe(`the plan minute limit counts calls in processing (${mode} database)`, () => {
    // No worker: uploaded calls stay in processing.
    const t = withIdpService(mode, { env: { PLAN_FREE_MINUTES_PER_MONTH: '60', PLAN_FREE_TRANSCRIPTS_PER_DAY: '50', SERVICE_MAX_UPLOADS_PER_HOUR: '50', SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '20' } });
    const db = () => t.service.ctx.database.db;

    test('at 59 of 60 minutes one call may start, the next is refused until the first is settled', async () => {
      await db().updateTable('featureFlags').set({ enabled: true }).where('flagKey', '=', 'billing_enabled').execute();
      const token = await t.idp.token({ sub: 'minutes-a', email: 'minutes-a@example.test' });
      const userId = await t.userIdOf(token);
      // 59 minutes of completed calls this period.
      await db().insertInto('usageLedger').values({ userId, callId: null, bytes: 0, durationSeconds: 59 * 60 }).execute();
      const limits = async () => (await t.request('GET', '/api/users/me/limits', { token })).body;
      assert.equal((await limits()).minutesUsedThisPeriod, 59);

      const first = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(wavPath, { durationSeconds: 4 * 3600 }) });
      assert.equal(first.status, 202, 'the last minute may start a call');
      // Before decoding, the call's declared four hours are reserved.
      assert.equal((await limits()).minutesUsedThisPeriod, 59 + 240);

      for (let i = 0; i < 5; i++) {
        const next = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(wavPath, { durationSeconds: 4 * 3600 }) });
        assert.equal(next.status, 429, `upload ${i + 2} while the first is processing`);
        assert.equal(next.body.error.code, 'plan_minutes_limit');
      }
      // A client that declares nothing still reserves a minute: refused as well.
      assert.equal((await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(wavPath) })).status, 429);

      // Decoded: the measured length replaces the reservation.
      await sql`UPDATE calls SET status = 'TRANSCRIBING', duration_seconds = 90 WHERE id = ${first.body.callId}`.execute(db());
      assert.equal((await limits()).minutesUsedThisPeriod, 59 + 2);
      // Failed: it costs nothing, and the minute left can be used again.
      await sql`UPDATE calls SET status = 'FAILED', error_reason = 'audio_undecodable' WHERE id = ${first.body.callId}`.execute(db());
      assert.equal((await limits()).minutesUsedThisPeriod, 59);
      assert.equal((await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(wavPath) })).status, 202);
      assert.equal((await limits()).minutesUsedThisPeriod, 60, 'a call without a declared length reserves one minute (1 s of WAV is 32 kB)');
      await db().updateTable('featureFlags').set({ enabled: false }).where('flagKey', '=', 'billing_enabled').execute();
    });
  });
}
