// GET /api/analytics/vibe against the real service: distributions, weekly trend and tone profile
// aggregated from stored analyses, on both databases.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dbModes } from '../support/service.js';
import { withIdpService } from '../support/two-users.js';
import { fixture, insertArtifact, insertCall } from '../fixtures/seed.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** The Monday (UTC) of the ISO week of a date, as YYYY-MM-DD. */
function mondayOf(d: Date): string {
  const day = (d.getUTCDay() + 6) % 7;
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day));
  return m.toISOString().slice(0, 10);
}

type Overall = 'positive' | 'neutral' | 'negative' | 'mixed' | 'unclear';
function analysis(o: { overall: Overall; user?: Overall; contact?: Overall; tone?: [string, string, string] }) {
  return {
    schemaVersion: 3,
    callType: 'business',
    oneLineSummary: 'A call.',
    actionItems: [],
    sentiment: {
      overall: o.overall,
      score: 0,
      reason: 'test',
      ...(o.user ? { userSentiment: { overall: o.user, score: 0, notes: '' } } : {}),
      ...(o.contact ? { contactSentiment: { overall: o.contact, score: 0, notes: '' } } : {}),
    },
    ...(o.tone ? { tone: { overall: 'neutral', descriptors: ['calm'], formality: o.tone[0], energy: o.tone[1], pace: o.tone[2] } } : {}),
  };
}

for (const mode of await dbModes()) {
  describe(`analytics (${mode} database)`, () => {
    let tokenA: string;
    let tokenB: string;
    let tokenEmpty: string;
    const now = Date.now();
    // Calls of user A that have a sentiment.overall inside the default 30-day window.
    const inWindow: Array<{ createdAt: Date; overall: string }> = [];

    const t = withIdpService(mode);
    before(async () => {
      tokenA = await t.idp.token({ sub: 'vibe-a' });
      tokenB = await t.idp.token({ sub: 'vibe-b' });
      tokenEmpty = await t.idp.token({ sub: 'vibe-empty' });
      const a = await t.userIdOf(tokenA);
      const b = await t.userIdOf(tokenB);
      await t.userIdOf(tokenEmpty);

      const seed = async (userId: string, ageMs: number, body: unknown | null, status: 'COMPLETED' | 'ANALYZING' = 'COMPLETED') => {
        const createdAt = new Date(now - ageMs);
        const id = await insertCall(t, userId, { createdAt, status });
        if (body) await insertArtifact(t, userId, id, 'analysis', body);
        const overall = (body as { sentiment?: { overall?: string } } | null)?.sentiment?.overall;
        if (userId === a && overall && ageMs < 30 * DAY) inWindow.push({ createdAt, overall });
      };

      await seed(a, 2 * HOUR, analysis({ overall: 'positive', user: 'positive', contact: 'neutral', tone: ['formal', 'high', 'fast'] }));
      await seed(a, 3 * HOUR, analysis({ overall: 'negative', user: 'negative', contact: 'negative', tone: ['informal', 'low', 'slow'] }));
      await seed(a, 8 * DAY, analysis({ overall: 'positive', user: 'positive', contact: 'positive', tone: ['formal', 'medium', 'normal'] }));
      await seed(a, 15 * DAY, analysis({ overall: 'mixed', user: 'neutral' }));
      // Legacy v1 shape: overall and reason only, no tone.
      await seed(a, 16 * DAY, fixture('analysis-v1.json'));
      // An analysis without sentiment or tone, and a call still being analysed: left out.
      await seed(a, 5 * DAY, { schemaVersion: 3, callType: 'personal', actionItems: [] });
      await seed(a, 1 * HOUR, null, 'ANALYZING');
      // Older than the default window.
      await seed(a, 45 * DAY, analysis({ overall: 'negative', user: 'negative', contact: 'negative', tone: ['formal', 'high', 'fast'] }));
      // Another user's call never shows.
      await seed(b, 2 * HOUR, analysis({ overall: 'unclear', user: 'unclear', contact: 'unclear', tone: ['semi-formal', 'medium', 'normal'] }));
    });

    test('default window: distributions, tone profile, and calls without values left out', async () => {
      const r = await t.request('GET', '/api/analytics/vibe', { token: tokenA });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.sentimentDistribution, { positive: 3, negative: 1, mixed: 1 });
      assert.deepEqual(r.body.userSentimentDistribution, { positive: 2, negative: 1, neutral: 1 });
      assert.deepEqual(r.body.contactSentimentDistribution, { neutral: 1, negative: 1, positive: 1 });
      assert.deepEqual(r.body.toneProfile, {
        formality: { formal: 2, informal: 1 },
        energy: { high: 1, low: 1, medium: 1 },
        pace: { fast: 1, slow: 1, normal: 1 },
      });
    });

    test('sentimentTrend has one entry per ISO week (Monday date), oldest first', async () => {
      const r = await t.request('GET', '/api/analytics/vibe', { token: tokenA });
      const expected = new Map<string, Record<string, number>>();
      for (const c of inWindow) {
        const w = mondayOf(c.createdAt);
        const counts = expected.get(w) ?? {};
        counts[c.overall] = (counts[c.overall] ?? 0) + 1;
        expected.set(w, counts);
      }
      const weeks = [...expected.keys()].sort();
      assert.deepEqual(
        r.body.sentimentTrend,
        weeks.map((week) => ({ week, counts: expected.get(week) })),
      );
      for (const e of r.body.sentimentTrend) {
        assert.match(e.week, /^\d{4}-\d{2}-\d{2}$/);
        assert.equal(new Date(`${e.week}T00:00:00Z`).getUTCDay(), 1, 'weeks start on Monday');
      }
      const total = r.body.sentimentTrend.reduce((n: number, e: { counts: Record<string, number> }) => n + Object.values(e.counts).reduce((a, b) => a + b, 0), 0);
      assert.equal(total, 5);
    });

    test('days narrows or widens the window', async () => {
      const day = await t.request('GET', '/api/analytics/vibe?days=1', { token: tokenA });
      assert.equal(day.status, 200);
      assert.deepEqual(day.body.sentimentDistribution, { positive: 1, negative: 1 });
      // The two recent calls may straddle a Monday midnight; the trend must follow.
      const w1 = mondayOf(new Date(now - 3 * HOUR));
      const w2 = mondayOf(new Date(now - 2 * HOUR));
      assert.deepEqual(
        day.body.sentimentTrend,
        w1 === w2 ? [{ week: w1, counts: { negative: 1, positive: 1 } }] : [{ week: w1, counts: { negative: 1 } }, { week: w2, counts: { positive: 1 } }],
      );

      const wide = await t.request('GET', '/api/analytics/vibe?days=60', { token: tokenA });
      assert.deepEqual(wide.body.sentimentDistribution, { positive: 3, negative: 2, mixed: 1 });
      assert.deepEqual(wide.body.toneProfile.formality, { formal: 3, informal: 1 });
    });

    test('only the caller\'s calls count; an empty account gets empty maps', async () => {
      const b = await t.request('GET', '/api/analytics/vibe', { token: tokenB });
      assert.deepEqual(b.body.sentimentDistribution, { unclear: 1 });
      assert.deepEqual(b.body.toneProfile.formality, { 'semi-formal': 1 });

      const empty = await t.request('GET', '/api/analytics/vibe', { token: tokenEmpty });
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, {
        sentimentDistribution: {},
        userSentimentDistribution: {},
        contactSentimentDistribution: {},
        sentimentTrend: [],
        toneProfile: { formality: {}, energy: {}, pace: {} },
        conversationMetrics: {
          callCount: 0, averageDurationSeconds: null, averageTurnCount: null, averageInterruptionCount: null,
          averageSilenceShare: null, averageResponseLatencySeconds: null, averageLongestMonologueSeconds: null, byRole: {},
        },
      });
    });

    test('invalid days is 400 validation_failed; no token is 401', async () => {
      for (const q of ['0', '-3', '3651', '1.5', 'abc']) {
        const r = await t.request('GET', `/api/analytics/vibe?days=${q}`, { token: tokenA });
        assert.equal(r.status, 400, q);
        assert.equal(r.body.error.code, 'validation_failed');
      }
      const max = await t.request('GET', '/api/analytics/vibe?days=3650', { token: tokenA });
      assert.equal(max.status, 200);
      const anon = await t.request('GET', '/api/analytics/vibe');
      assert.equal(anon.status, 401);
    });
  });
}
