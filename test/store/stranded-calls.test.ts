// Calls whose processing job pg-boss ended without the handler (issue 22, finding 8): the job is
// forced into the states the queue leaves behind (failed after expiring on every attempt,
// completed without a result, deleted) in pg-boss's own table, and the reconciliation sweep must
// fail exactly those calls, with the documented reason, a processing event and the call.failed
// webhook, and leave alone every call whose job is waiting, running or due for a retry.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { dbModes, tempDir, uploadForm } from '../support/service.js';
import { withIdpService } from '../support/two-users.js';
import { failStrandedCalls } from '../../src/domain/stranded-calls.js';
import { ANALYSIS_QUEUE, CALL_QUEUE } from '../../src/store/queue.js';

const work = tempDir('cas-stranded-');
const wavPath = path.join(work, 'call.wav');
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ar', '16000', '-ac', '1', wavPath]);

for (const mode of await dbModes()) {
  describe(`calls whose job is gone are failed, live ones are not (${mode} database)`, () => {
    // No worker: the jobs stay where the test puts them.
    const t = withIdpService(mode, { env: { SERVICE_MAX_CONCURRENT_ACTIVE_CALLS: '20', SERVICE_MAX_UPLOADS_PER_HOUR: '50' } });
    const db = () => t.service.ctx.database.db;

    async function uploadCall(token: string): Promise<string> {
      const r = await t.request('POST', '/api/calls/analyze', { token, form: uploadForm(wavPath) });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      return r.body.callId;
    }
    /** Puts the call's job in `state` (or deletes it), and the call in `status` as a worker would have. */
    async function strand(callId: string, state: 'created' | 'retry' | 'active' | 'failed' | 'completed' | 'cancelled' | 'deleted', status = 'TRANSCRIBING') {
      if (state === 'deleted') await sql`DELETE FROM pgboss.job WHERE name = ${CALL_QUEUE} AND singleton_key = ${callId}`.execute(db());
      else await sql`UPDATE pgboss.job SET state = ${state}::pgboss.job_state WHERE name = ${CALL_QUEUE} AND singleton_key = ${callId}`.execute(db());
      // Unchanged for ten minutes: past any grace.
      await sql`UPDATE calls SET status = ${status}, updated_at = now() - interval '10 minutes' WHERE id = ${callId}`.execute(db());
    }

    test('failed, completed-without-result, cancelled and deleted jobs fail their call once; created, retry and active jobs are left alone', async () => {
      const token = await t.idp.token({ sub: 'stranded-a', email: 'stranded-a@example.test' });
      const hook = await t.request('POST', '/api/webhooks', { token, body: { url: 'http://127.0.0.1:9/hook', events: ['call.failed'] } });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const ids: Record<string, string> = {};
      for (const state of ['created', 'retry', 'active', 'failed', 'completed', 'cancelled', 'deleted'] as const) {
        ids[state] = await uploadCall(token);
        await strand(ids[state], state, state === 'created' ? 'QUEUED' : 'TRANSCRIBING');
      }
      const before = (await t.request('GET', '/api/users/me/limits', { token })).body;

      const failed = await failStrandedCalls(db(), t.service.queue, { graceSeconds: 60 });
      assert.deepEqual([...failed].sort(), [ids.failed, ids.completed, ids.cancelled, ids.deleted].sort());

      for (const state of ['failed', 'completed', 'cancelled', 'deleted']) {
        const call = (await t.request('GET', `/api/calls/${ids[state]}`, { token })).body;
        assert.equal(call.status, 'FAILED', state);
        assert.equal(call.errorReason, 'internal_error', state);
        const events = await db().selectFrom('processingEvents').select(['step', 'outcome', 'detail']).where('callId', '=', ids[state]).where('step', '=', 'PIPELINE').where('outcome', '=', 'FAILED').execute();
        assert.equal(events.length, 1, state);
        const detail = (typeof events[0].detail === 'string' ? JSON.parse(events[0].detail) : events[0].detail) as Record<string, unknown>;
        assert.equal(detail.cause, 'job_lost');
        assert.equal(detail.jobState, state === 'deleted' ? 'gone' : state);
        const deliveries = await db().selectFrom('webhookDeliveries').select(['event', 'payload']).where('callId', '=', ids[state]).execute();
        assert.equal(deliveries.length, 1, `one call.failed delivery for the ${state} job`);
        assert.equal(deliveries[0].event, 'call.failed');
        assert.equal(JSON.parse(deliveries[0].payload).data.errorReason, 'internal_error');
      }
      for (const state of ['created', 'retry', 'active']) {
        const call = (await t.request('GET', `/api/calls/${ids[state]}`, { token })).body;
        assert.notEqual(call.status, 'FAILED', `a call whose job is ${state} keeps processing`);
        assert.equal(await db().selectFrom('webhookDeliveries').select('id').where('callId', '=', ids[state]).executeTakeFirst(), undefined);
      }
      const after = (await t.request('GET', '/api/users/me/limits', { token })).body;
      assert.equal(before.activeCalls - after.activeCalls, 4, 'the failed calls no longer hold active-call slots');

      // Run again (another process's sweep): nothing more happens.
      assert.deepEqual(await failStrandedCalls(db(), t.service.queue, { graceSeconds: 60 }), []);
      assert.equal((await db().selectFrom('webhookDeliveries').select('id').where('userId', '=', await t.userIdOf(token)).execute()).length, 4);
    });

    test('a call changed within the grace period is not touched, whatever its job', async () => {
      const token = await t.idp.token({ sub: 'stranded-b', email: 'stranded-b@example.test' });
      const callId = await uploadCall(token);
      await strand(callId, 'failed');
      await sql`UPDATE calls SET updated_at = now() WHERE id = ${callId}`.execute(db());
      assert.deepEqual(await failStrandedCalls(db(), t.service.queue, { graceSeconds: 60 }), []);
      assert.equal((await t.request('GET', `/api/calls/${callId}`, { token })).body.status, 'TRANSCRIBING');
    });

    /** Enqueues the call's analysis job (as the call job's hand-over or a correction does) and puts it in `state`. */
    async function analysisJob(callId: string, userId: string, state: 'created' | 'active' | 'retry' | 'failed' | 'completed' | 'deleted') {
      await db().transaction().execute((trx) => t.service.queue.enqueueAnalysis(trx, { userId, callId }));
      if (state === 'deleted') await sql`DELETE FROM pgboss.job WHERE name = ${ANALYSIS_QUEUE} AND singleton_key = ${callId}`.execute(db());
      else await sql`UPDATE pgboss.job SET state = ${state}::pgboss.job_state WHERE name = ${ANALYSIS_QUEUE} AND singleton_key = ${callId}`.execute(db());
    }

    test('a call ANALYZING after its call job handed it over is failed only when its analysis job is gone too', async () => {
      const token = await t.idp.token({ sub: 'stranded-c', email: 'stranded-c@example.test' });
      const userId = await t.userIdOf(token);
      const ids: Record<string, string> = {};
      for (const state of ['created', 'active', 'retry', 'failed', 'deleted'] as const) {
        ids[state] = await uploadCall(token);
        // The call job finished (it handed the call over); the analysis job is where the test puts it.
        await strand(ids[state], 'completed', 'ANALYZING');
        await analysisJob(ids[state], userId, state);
      }
      const failed = await failStrandedCalls(db(), t.service.queue, { graceSeconds: 60 });
      assert.deepEqual([...failed].sort(), [ids.failed, ids.deleted].sort());
      for (const state of ['failed', 'deleted']) {
        const call = (await t.request('GET', `/api/calls/${ids[state]}`, { token })).body;
        assert.equal(call.status, 'FAILED', state);
        const ev = await db().selectFrom('processingEvents').select('detail').where('callId', '=', ids[state]).where('step', '=', 'PIPELINE').where('outcome', '=', 'FAILED').execute();
        assert.equal(ev.length, 1);
        const detail = (typeof ev[0].detail === 'string' ? JSON.parse(ev[0].detail) : ev[0].detail) as Record<string, unknown>;
        // The latest job of the call is the analysis job (or, once that is gone, the call job).
        assert.deepEqual([detail.cause, detail.jobState, detail.statusBefore], ['job_lost', state === 'deleted' ? 'completed' : 'failed', 'ANALYZING']);
      }
      for (const state of ['created', 'active', 'retry']) {
        assert.equal((await t.request('GET', `/api/calls/${ids[state]}`, { token })).body.status, 'ANALYZING', `an analysis job ${state} keeps the call`);
      }
    });

    test('a pending analysis whose job is gone is given up: analysisPending cleared, the failure recorded; a live or recent one is kept', async () => {
      const token = await t.idp.token({ sub: 'stranded-d', email: 'stranded-d@example.test' });
      const userId = await t.userIdOf(token);
      const ids: Record<string, string> = {};
      for (const state of ['created', 'active', 'failed', 'completed', 'deleted', 'recent'] as const) {
        ids[state] = await uploadCall(token);
        await strand(ids[state], 'completed', 'COMPLETED');
        // A correction asked for the analysis of revision 1 (the call's events are old but for 'recent').
        await sql`UPDATE calls SET transcript_revision = 1, analysis_requested_revision = 1 WHERE id = ${ids[state]}`.execute(db());
        if (state !== 'recent') await sql`UPDATE processing_events SET created_at = now() - interval '10 minutes' WHERE call_id = ${ids[state]}`.execute(db());
        await analysisJob(ids[state], userId, state === 'recent' ? 'failed' : state);
      }
      for (const id of Object.values(ids)) assert.equal((await t.request('GET', `/api/calls/${id}`, { token })).body.analysisPending, true);

      assert.deepEqual(await failStrandedCalls(db(), t.service.queue, { graceSeconds: 60 }), [], 'completed calls are not failed');
      for (const state of ['failed', 'completed', 'deleted']) {
        const call = (await t.request('GET', `/api/calls/${ids[state]}`, { token })).body;
        assert.equal(call.status, 'COMPLETED', state);
        assert.equal(call.analysisPending, undefined, `the pending mark of an analysis whose job is ${state} is cleared`);
        const ev = await db().selectFrom('processingEvents').select('detail').where('callId', '=', ids[state]).where('step', '=', 'ANALYZE').where('outcome', '=', 'FAILED').execute();
        assert.equal(ev.length, 1, state);
        const detail = (typeof ev[0].detail === 'string' ? JSON.parse(ev[0].detail) : ev[0].detail) as Record<string, unknown>;
        assert.deepEqual([detail.cause, detail.jobState, detail.revision], ['job_lost', state === 'deleted' ? 'gone' : state, 1]);
      }
      for (const state of ['created', 'active', 'recent']) {
        assert.equal((await t.request('GET', `/api/calls/${ids[state]}`, { token })).body.analysisPending, true, `${state}: still pending`);
      }
      // Another process's sweep: nothing more happens.
      await failStrandedCalls(db(), t.service.queue, { graceSeconds: 60 });
      const failures = await db().selectFrom('processingEvents').select('id').where('userId', '=', userId).where('step', '=', 'ANALYZE').where('outcome', '=', 'FAILED').execute();
      assert.equal(failures.length, 3);
    });
  });
}
