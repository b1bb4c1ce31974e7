// The upload's domain rules without HTTP: the metadata envelope, the title, the usage and plan
// guards (pure functions), and the upload use case (`uploadCall`) against a real PostgreSQL with
// a recording blob store and queue: the per-user slots of uploads in flight, the idempotent
// replay, and the clean-up of whatever a failed upload stored.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { domainDatabase, skipWithoutDatabase } from '../support/domain-db.js';
import { parseUploadMetadata, uploadCall, uploadTitle, type UploadBody } from '../../src/domain/uploads.js';
import { checkUpload, consumesTranscriptTopup, minutesBeyondAllowance, type UsageLimits } from '../../src/domain/usage.js';
import { sweepExpiredUploadSlots } from '../../src/domain/upload-slots.js';
import { ErrorCode, ServiceError } from '../../src/domain/errors.js';
import { callPrefix, type BlobStore } from '../../src/store/blobs.js';
import type { JobQueue } from '../../src/store/queue.js';
import type { User } from '../../src/store/schema.js';

const codeOf = (code: ErrorCode) => (err: unknown) => err instanceof ServiceError && err.code === code;
const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ServiceError && err.code === ErrorCode.ValidationFailed, String(err));
    assert.doesNotMatch(JSON.stringify(err.details), /SECRET/, 'a field error never repeats the value sent');
    return ((err.details as { fields: Array<{ path: string }> }).fields ?? []).map((f) => f.path);
  }
  assert.fail('no validation error');
};

describe('the upload metadata envelope and title', () => {
  test('fields are trimmed, blank ones left out, the direction read in any case; JSON text and parsed values both count', () => {
    assert.deepEqual(parseUploadMetadata(JSON.stringify({ title: ' Quote ', contactName: '  ', phoneNumber: '+1 555 0100 ', direction: ' outgoing ' })), {
      title: 'Quote',
      phoneNumber: '+1 555 0100',
      direction: 'OUTGOING',
    });
    assert.deepEqual(parseUploadMetadata({ direction: 'Incoming', durationSeconds: 90, recordedAt: '2026-11-20T10:00:00+01:00' }), {
      direction: 'INCOMING',
      durationSeconds: 90,
      recordedAt: '2026-11-20T09:00:00.000Z',
    });
    assert.deepEqual(parseUploadMetadata(undefined), {});
    assert.deepEqual(parseUploadMetadata('   '), {});
  });

  test('every bad field is named, none echoed: direction outside INCOMING/OUTGOING, a time without a zone, a fractional duration, a number for a string', () => {
    assert.deepEqual(
      fieldsOf(() => parseUploadMetadata({ direction: 'SECRET', recordedAt: '2026-11-20T10:00:00', durationSeconds: 1.5, contactName: 42 })).sort(),
      ['/metadata/contactName', '/metadata/direction', '/metadata/durationSeconds', '/metadata/recordedAt'],
    );
    assert.deepEqual(fieldsOf(() => parseUploadMetadata({ phoneNumber: `SECRET${'9'.repeat(50)}` })), ['/metadata/phoneNumber']);
    assert.deepEqual(fieldsOf(() => parseUploadMetadata('[1]')), ['/metadata']);
    assert.deepEqual(fieldsOf(() => parseUploadMetadata('{SECRET')), ['/metadata']);
  });

  test("the envelope's title wins over the title part; a long title part is cut between characters", () => {
    assert.equal(uploadTitle({ title: 'From the envelope' }, 'From the part'), 'From the envelope');
    assert.equal(uploadTitle({}, '  From the part  '), 'From the part');
    assert.equal(uploadTitle({}, '   '), null);
    const cut = uploadTitle({}, `${'a'.repeat(499)}😀 and more`)!;
    assert.equal(cut, 'a'.repeat(499), 'the emoji that would straddle the limit is left out whole');
  });
});

describe('usage and plan guards of an upload', () => {
  const limits: UsageLimits = {
    maxUploadsPerHour: 10,
    uploadsThisHour: 0,
    maxConcurrentActiveCalls: 2,
    activeCalls: 0,
    maxMonthlyUploadBytes: 1000,
    uploadedBytesThisMonth: 0,
    plan: 'FREE',
    minutesUsedThisPeriod: 0,
    minutesLimit: 60,
    transcriptsToday: 0,
    dailyTranscriptLimit: 5,
    topupMinutesBalance: 0,
    topupTranscriptsBalance: 0,
  };
  const code = (l: Partial<UsageLimits>, bytes = 1, billing = true) => checkUpload({ ...limits, ...l }, bytes, billing)?.code ?? null;

  test('usage guards hold whether billing is on or off, in order: rate, concurrent calls, monthly bytes', () => {
    assert.equal(code({ uploadsThisHour: 10, activeCalls: 2 }, 1, false), 'upload_rate_limited');
    assert.equal(code({ activeCalls: 2, uploadedBytesThisMonth: 1000 }, 1, false), 'concurrent_calls_limit');
    assert.equal(code({ uploadedBytesThisMonth: 990 }, 10, false), null, 'exactly the monthly allowance fits');
    assert.equal(code({ uploadedBytesThisMonth: 990 }, 11, false), 'monthly_upload_bytes_limit');
  });

  test('plan limits apply only with billing on, and top-up credit covers a spent allowance', () => {
    assert.equal(code({ minutesUsedThisPeriod: 60 }, 1, false), null);
    assert.equal(code({ minutesUsedThisPeriod: 60 }), 'plan_minutes_limit');
    assert.equal(code({ minutesUsedThisPeriod: 60, topupMinutesBalance: 1 }), null);
    assert.equal(code({ transcriptsToday: 5 }), 'plan_daily_transcripts_limit');
    assert.equal(code({ transcriptsToday: 5, topupTranscriptsBalance: 1 }), null);
    assert.equal(code({ plan: 'PRO', transcriptsToday: null, dailyTranscriptLimit: null }), null, 'no daily limit on PRO');
  });

  test('a transcript credit is spent only past the daily allowance with billing on; minutes beyond the allowance are what is left over', () => {
    assert.equal(consumesTranscriptTopup({ ...limits, transcriptsToday: 4 }, true), false);
    assert.equal(consumesTranscriptTopup({ ...limits, transcriptsToday: 5 }, true), true);
    assert.equal(consumesTranscriptTopup({ ...limits, transcriptsToday: 5 }, false), false);
    assert.equal(minutesBeyondAllowance({ ...limits, minutesUsedThisPeriod: 58 }, 5), 3);
    assert.equal(minutesBeyondAllowance({ ...limits, minutesUsedThisPeriod: 10 }, 5), 0);
    assert.equal(minutesBeyondAllowance({ ...limits, minutesUsedThisPeriod: 70 }, 5), 5, 'an overrun allowance takes the whole call');
  });
});

describe('the upload use case (external database)', { skip: skipWithoutDatabase }, () => {
  const { db, config, user } = domainDatabase({ SERVICE_MAX_UPLOADS_IN_FLIGHT: '1' });
  const removed: string[] = [];
  let enqueued = 0;
  const blobs = { deletePrefix: async (prefix: string) => void removed.push(prefix) } as unknown as BlobStore;
  const queue = { enqueueCall: async () => void enqueued++ } as unknown as JobQueue;
  const deps = () => ({ db: db(), config: config(), queue, blobs });
  /** An upload by `u` declaring 100 bytes, whose body `readBody` reads. */
  const upload = (u: User, readBody: (callId: string, body: UploadBody) => Promise<void>, idempotencyKey: string | null = null) =>
    uploadCall(deps(), { user: u, idempotencyKey, declaredBytes: 100, readBody });
  const audio = (callId: string) => ({ key: `${callId}/audio.wav`, format: 'wav', bytes: 100 });
  const slotsOf = async (userId: string) => (await db().selectFrom('uploadsInFlight').select('id').where('userId', '=', userId).execute()).length;
  const callRow = (id: string) => db().selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
  /** A body reader that stores the audio and sends `metadata`. */
  const sends = (metadata: unknown) => async (callId: string, body: UploadBody) => {
    body.audio = audio(callId);
    body.metadataRaw = metadata;
  };

  test('an upload creates the call with its metadata and queues it once; its slot is freed; a replay of its key reads no body', async () => {
    const u = await user('up-ok');
    const before = enqueued;
    const { callId } = await upload(u, sends(JSON.stringify({ direction: 'OUTGOING', contactName: 'Iris Kell' })), 'k1');
    const row = await callRow(callId);
    assert.deepEqual([row?.status, row?.direction, row?.contactName, row?.idempotencyKey], ['QUEUED', 'OUTGOING', 'Iris Kell', 'k1']);
    assert.ok(row?.serviceContactId, 'the contact of that name is assigned');
    assert.equal(enqueued, before + 1);
    assert.equal(await slotsOf(u.id), 0);
    assert.ok(!removed.includes(callPrefix(u.id, callId)));

    const replay = await upload(u, async () => assert.fail('a replay reads no body'), 'k1');
    assert.equal(replay.callId, callId);
    assert.equal(enqueued, before + 1);
  });

  test('what a failed upload stored is removed, with no call and the slot freed; a body refused before storing leaves nothing to remove', async () => {
    const u = await user('up-fail');
    let stored = '';
    await assert.rejects(
      upload(u, async (callId, body) => {
          stored = callId;
          await sends('{not json')(callId, body);
        }),
      codeOf(ErrorCode.ValidationFailed),
    );
    assert.ok(removed.includes(callPrefix(u.id, stored)));
    assert.equal(await callRow(stored), undefined);
    assert.equal(await slotsOf(u.id), 0);

    // Cut off by a time limit before the file part finished: the half-stored part goes too.
    let cut = '';
    const timeout = new ServiceError(ErrorCode.RequestTimeout);
    await assert.rejects(
      upload(u, async (callId, body) => {
          cut = callId;
          body.interrupted = true;
          throw timeout;
        }),
      (err) => err === timeout,
    );
    assert.ok(removed.includes(callPrefix(u.id, cut)));

    let refused = '';
    await assert.rejects(
      upload(u, async (callId) => {
          refused = callId;
          throw new ServiceError(ErrorCode.UnsupportedMediaType);
        }),
      codeOf(ErrorCode.UnsupportedMediaType),
    );
    assert.ok(!removed.includes(callPrefix(u.id, refused)));
    await assert.rejects(upload(u, async () => undefined), codeOf(ErrorCode.ValidationFailed), 'no file part');
    assert.equal(await slotsOf(u.id), 0);
  });

  test("one user's uploads in flight are capped (here at one): a second is refused at once, another user's is not counted, an expired slot stops counting", async () => {
    const [u, other] = [await user('up-cap'), await user('up-other')];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reading!: () => void;
    const started = new Promise<void>((r) => (reading = r));
    const first = upload(u, async (callId, body) => {
        reading();
        await held;
        await sends(undefined)(callId, body);
      });
    await started;
    await assert.rejects(upload(u, sends(undefined)), codeOf(ErrorCode.UploadsInFlightLimit));
    await upload(other, sends(undefined));
    release();
    await first;
    await upload(u, sends(undefined));

    // A slot left by a process that died mid-upload counts until it expires, then is swept.
    await db().insertInto('uploadsInFlight').values({ id: crypto.randomUUID(), userId: u.id, expiresAt: sql<Date>`now() - interval '1 second'` }).execute();
    await upload(u, sends(undefined));
    assert.ok((await sweepExpiredUploadSlots(db())) >= 1);
    assert.equal(await slotsOf(u.id), 0);
  });

  test('a suspended account uploads nothing, not even a replay; a declared size over the limit is refused before the body', async () => {
    const u = await user('up-suspended');
    await assert.rejects(
      uploadCall(deps(), { user: { ...u, accountStatus: 'SUSPENDED' }, idempotencyKey: 'k', declaredBytes: 1, readBody: async () => assert.fail('no body is read') }),
      codeOf(ErrorCode.AccountSuspended),
    );
    await assert.rejects(
      uploadCall(deps(), { user: u, idempotencyKey: null, declaredBytes: config().limits.maxFileSize + 1, readBody: async () => assert.fail('no body is read') }),
      codeOf(ErrorCode.PayloadTooLarge),
    );
    assert.equal(await slotsOf(u.id), 0);
  });
});
