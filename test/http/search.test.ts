// GET /api/calls/search over seeded calls: ranking inputs, the segments of a transcript hit, the
// index following every write path in the same transaction, ownership, validation and paging.
// test/e2e/search.test.ts searches calls processed by the real pipeline.
import { describe, test } from 'node:test';
import pino from 'pino';
import { sql } from 'kysely';
import assert from 'node:assert/strict';
import { dbModes, startTestService, TestIdp } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { insertCall, seedCompletedCall } from '../fixtures/seed.js';

for (const mode of await dbModes()) {
  describe(`call search (${mode} database)`, () => {
    const t = withTwoUsers(mode, { a: { sub: 'search-a', name: 'Olivia Park' }, b: { sub: 'search-b' } });

    /** The hit's rank is ts_rank_cd of the call's document by the query's words OR-ed, and differs from the whole query's rank. */
    const assertRankedByWordsOred = async (callId: string, rank: number, words: string[]) => {
      const db = t.service.ctx.database.db;
      const { rows } = await sql<{ ored: number; whole: number }>`
        SELECT ts_rank_cd(document, to_tsquery('english', ${words.join(' | ')}))::float8 AS ored,
               ts_rank_cd(document, plainto_tsquery('english', ${words.join(' ')}))::float8 AS whole
        FROM call_search WHERE call_id = ${callId}::uuid AND user_id = ${t.userA}::uuid`.execute(db);
      assert.equal(rows.length, 1);
      assert.notEqual(rows[0].ored, rows[0].whole, 'the two rankings must differ for this check to mean anything');
      assert.ok(Math.abs(rank - rows[0].ored) < 1e-6, `rank ${rank}, OR-ed words ${rows[0].ored}, whole query ${rows[0].whole}`);
    };

    const search = (q: string, token = t.tokenA, extra = '') => t.request('GET', `/api/calls/search?q=${encodeURIComponent(q)}${extra}`, { token });

    test('a phrase spoken in a transcript returns the call, the matching segment with its time and speaker, and a highlighted snippet', async () => {
      const callId = await seedCompletedCall(t, t.userA, { title: 'Fleet demo' });
      const r = await search('"pricing sheet"');
      assert.equal(r.status, 200);
      const hit = r.body.items.find((h: { callId: string }) => h.callId === callId);
      assert.ok(hit, 'the call is found');
      assert.equal(hit.title, 'Fleet demo');
      assert.equal(hit.status, 'COMPLETED');
      assert.equal(hit.matchingSegmentCount, 1);
      assert.deepEqual(hit.segments, [
        { segmentId: 'seg_0007', startSeconds: 30, endSeconds: 34.5, speakerId: 'spk_1', speakerDisplayName: 'Olivia Park', role: 'USER' },
      ]);
      assert.match(hit.snippet, /<mark>pricing<\/mark> <mark>sheet<\/mark>/);
      assert.ok(hit.rank > 0);
      assert.equal(hit.segmentMatch, 'all_terms');
      // Stemming: "invites" finds "invite" in two segments.
      const stem = await search('invites');
      const h2 = stem.body.items.find((h: { callId: string }) => h.callId === callId);
      assert.deepEqual(h2.segments.map((s: { segmentId: string }) => s.segmentId), ['seg_0005', 'seg_0007']);
      const hitOf = async (q: string) => (await search(q)).body.items.find((h: { callId: string }) => h.callId === callId);
      const ids = (h: { segments: Array<{ segmentId: string }> }) => h.segments.map((s) => s.segmentId);
      // Words spread over two segments: no segment holds both, so those holding either are listed.
      const spread = await hitOf('morning demo');
      assert.equal(spread.segmentMatch, 'some_terms');
      assert.deepEqual(ids(spread), ['seg_0001', 'seg_0002']);
      // Excluded words and phrases take no part in choosing segments.
      const excluded = await hitOf('morning demo -zeppelin');
      assert.equal(excluded.segmentMatch, 'some_terms');
      assert.deepEqual(ids(excluded), ['seg_0001', 'seg_0002']);
      const excludedPhrase = await hitOf('morning sheet -"sheet music"');
      assert.deepEqual(ids(excludedPhrase), ['seg_0001', 'seg_0007']);
      const allWithExclusion = await hitOf('invite -zeppelin');
      assert.equal(allWithExclusion.segmentMatch, 'all_terms');
      assert.deepEqual(ids(allWithExclusion), ['seg_0005', 'seg_0007']);
    });

    test('the index follows edits, action items, contact renames and deletion, and ranks a title above transcript text', async () => {
      const plain = await seedCompletedCall(t, t.userA, { title: 'Quarterly catch-up' });
      const titled = await seedCompletedCall(t, t.userA, { title: 'Zeppelin maintenance' });
      assert.deepEqual((await search('zeppelin')).body.items.map((h: { callId: string }) => h.callId), [titled]);

      // Notes edited through the API are searchable at once; a word in the title outranks the same word in the notes.
      assert.equal((await t.request('PATCH', `/api/calls/${plain}`, { token: t.tokenA, body: { notes: 'Ask about the zeppelin hangar lease.' } })).status, 200);
      const both = await search('zeppelin');
      assert.deepEqual(both.body.items.map((h: { callId: string }) => h.callId), [titled, plain]);
      assert.deepEqual(both.body.items[1].segments, []);
      assert.equal(both.body.items[1].segmentMatch, 'none');
      assert.match(both.body.items[1].snippet, /<mark>zeppelin<\/mark>/);

      // A manual action item.
      const item = await t.request('POST', `/api/calls/${plain}/action-items`, { token: t.tokenA, body: { title: 'Renew the quokka insurance' } });
      assert.equal(item.status, 201);
      assert.deepEqual((await search('quokka')).body.items.map((h: { callId: string }) => h.callId), [plain]);
      assert.equal((await t.request('DELETE', `/api/action-items/${item.body.id}`, { token: t.tokenA })).status, 204);
      assert.deepEqual((await search('quokka')).body.items, []);

      // The assigned contact's name, and its rename.
      const contact = await t.request('POST', '/api/contacts', { token: t.tokenA, body: { name: 'Marigold Transport' } });
      assert.equal(contact.status, 201);
      assert.equal((await t.request('PATCH', `/api/calls/${plain}/contact`, { token: t.tokenA, body: { contactId: contact.body.id } })).status, 200);
      assert.deepEqual((await search('marigold')).body.items.map((h: { callId: string }) => h.callId), [plain]);
      assert.equal((await t.request('PUT', `/api/contacts/${contact.body.id}`, { token: t.tokenA, body: { name: 'Juniper Freight' } })).status, 200);
      assert.deepEqual((await search('marigold')).body.items, []);
      assert.deepEqual((await search('juniper')).body.items.map((h: { callId: string }) => h.callId), [plain]);

      // A deleted call leaves the index.
      assert.equal((await t.request('DELETE', `/api/calls/${titled}`, { token: t.tokenA })).status, 204);
      assert.deepEqual((await search('zeppelin')).body.items.map((h: { callId: string }) => h.callId), [plain]);
      const rows = await t.service.ctx.database.db.selectFrom('call_search' as never).select('call_id' as never).where('call_id' as never, '=', titled as never).execute();
      assert.equal(rows.length, 0);
    });

    test('a completion-like transaction and a concurrent action item edit of the same call both commit; the index shows the final state', async () => {
      const callId = await seedCompletedCall(t, t.userA, { title: 'Concurrency check' });
      const db = t.service.ctx.database.db;
      const [item] = await db.selectFrom('actionItems').select('id').where('callId', '=', callId).where('userId', '=', t.userA).limit(1).execute();
      let touched!: () => void;
      const aTouched = new Promise<void>((r) => (touched = r));
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      // A: rewrites an artifact, then deletes the call's action items (as the completion step does).
      const a = db.transaction().execute(async (trx) => {
        await trx.updateTable('callArtifacts').set({ schemaVersion: 3 }).where('callId', '=', callId).where('kind', '=', 'analysis').execute();
        touched();
        await sleep(300); // B has locked its item by now
        await trx.deleteFrom('actionItems').where('callId', '=', callId).where('userId', '=', t.userA).execute();
      });
      // B: edits one of those items and holds its lock for a moment.
      const b = db.transaction().execute(async (trx) => {
        await aTouched;
        await trx.updateTable('actionItems').set({ title: 'Feed the kiwi' }).where('id', '=', item.id).execute();
        await sleep(600);
      });
      const results = await Promise.allSettled([a, b]);
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled'], JSON.stringify(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))));
      // A committed last: its deletion removed the edited item, and the index says so.
      assert.deepEqual((await search('kiwi')).body.items, []);
      assert.deepEqual((await search('"concurrency check"')).body.items.map((h: { callId: string }) => h.callId), [callId]);
    });

    test('only the caller\'s calls are searched; a call without transcript matches on its metadata', async () => {
      const foreign = await seedCompletedCall(t, t.userB, { title: 'Walrus budget review' });
      const queued = await insertCall(t, t.userA, { status: 'QUEUED', title: 'Walrus sighting report' });
      const mine = await search('walrus');
      assert.deepEqual(mine.body.items.map((h: { callId: string }) => h.callId), [queued]);
      assert.equal(mine.body.items[0].status, 'QUEUED');
      const theirs = await search('walrus', t.tokenB);
      assert.deepEqual(theirs.body.items.map((h: { callId: string }) => h.callId), [foreign]);
    });

    test('pages through hits with a cursor bound to its query', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) ids.add(await insertCall(t, t.userA, { title: `Pelican call ${i}` }));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const r = await search('pelican', t.tokenA, `&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(r.status, 200);
        assert.ok(r.body.items.length <= 2);
        seen.push(...r.body.items.map((h: { callId: string }) => h.callId));
        cursor = r.body.nextCursor;
        pages++;
      } while (cursor && pages < 10);
      assert.equal(pages, 3);
      assert.deepEqual(new Set(seen), ids);
      assert.equal(seen.length, 5);

      const first = await search('pelican', t.tokenA, '&limit=2');
      const other = await search('walrus', t.tokenA, `&cursor=${first.body.nextCursor}`);
      assert.equal(other.status, 400);
      assert.equal(other.body.error.code, 'validation_failed');
    });

    test('a snippet is safe to insert as HTML: user markup, &, quotes and a literal <mark> escaped, only the matched words in <mark>', async () => {
      const hostile = [
        'Quetzal plan <script>alert(1)</script> for Tom & Jerry\'s "quetzal" deal',
        '<img src=x onerror=alert(1)// <mark>not ours</mark> a<mark>b quetzal',
        'x</mark><b onmouseover="steal()">quetzal</b> &amp; &lt;already&gt; \u0001fake\u0002 marker quetzal',
      ];
      const callId = await insertCall(t, t.userA, { title: 'Hostile markup' });
      await t.service.ctx.database.db.updateTable('calls').set({ notes: hostile.join('\n') }).where('id', '=', callId).execute();
      const hits = [];
      for (const q of ['quetzal', 'marker', 'onerror']) {
        const r = await search(q);
        assert.equal(r.status, 200);
        const hit = r.body.items.find((h: { callId: string }) => h.callId === callId);
        assert.ok(hit, q);
        hits.push(hit.snippet as string);
      }
      for (const snippet of hits) {
        // Our markers are the only markup, balanced and never nested, each around a word of the query.
        const marked = [...snippet.matchAll(/<mark>(.*?)<\/mark>/g)].map((m) => m[1]);
        assert.ok(marked.length > 0, snippet);
        for (const w of marked) assert.match(w, /^(quetzal|marker|onerror)$/i, snippet);
        const text = snippet.replace(/<mark>|<\/mark>/g, '');
        assert.doesNotMatch(text, /[<>"'\u0001\u0002]/, `nothing left to parse as markup: ${snippet}`);
        assert.doesNotMatch(text.replace(/&(amp|lt|gt|quot|#39);/g, ''), /&/, `every & escaped: ${snippet}`);
      }
      const decode = (s: string) => s.replace(/<\/?mark>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
      const all = hits.map(decode).join('\n');
      assert.match(all, /Tom & Jerry's "quetzal" deal/, 'the text reads back as written once unescaped');
      assert.match(all, /<img src=x onerror=alert\(1\)\/\//);
      assert.match(hits.join('\n'), /&lt;img src=x <mark>onerror<\/mark>=alert\(1\)\/\//);
      assert.match(all, /&amp; &lt;already&gt;/, 'text that looks escaped is escaped again: it is text');
    });

    test('a long phrase over long notes is answered at once, its words highlighted (the snippet no longer costs PostgreSQL minutes)', async () => {
      // ts_headline's cost grows steeply with the number of query words that must meet: over 20 000
      // characters of notes (3 300 words), a quoted phrase of 30 words took 1.1 s of the database's
      // CPU per hit, 40 words 7 s, 50 words over 30 s, 80 words (under the 500-character limit of q)
      // more than a minute, with no statement time limit: a few such searches held every database
      // connection and CPU of the service.
      const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango'];
      let notes = '';
      for (let i = 0; notes.length + 10 < 20_000; i++) notes += `${words[i % words.length]} `;
      const callId = await seedCompletedCall(t, t.userA, { title: 'Spelling drill' });
      assert.equal((await t.request('PATCH', `/api/calls/${callId}`, { token: t.tokenA, body: { notes: notes.trim() } })).status, 200);
      const phrase = `"${[...words, ...words, ...words, ...words].join(' ')}"`;
      assert.ok(phrase.length <= 500);
      const r = await search(phrase);
      assert.equal(r.status, 200);
      const hit = r.body.items.find((h: { callId: string }) => h.callId === callId);
      assert.ok(hit, 'the call is found');
      assert.match(hit.snippet, /<mark>alpha<\/mark>/);
      // What keeps it cheap (no wall-clock limit here: speed is bench/search.ts's): the phrase is ranked
      // and highlighted by its words OR-ed, not by the 80-word phrase.
      await assertRankedByWordsOred(callId, hit.rank, words);
      // Short queries keep their exact snippet: the phrase itself is highlighted.
      const short = (await search('"sierra tango alpha"')).body.items.find((h: { callId: string }) => h.callId === callId);
      assert.match(short.snippet, /<mark>sierra<\/mark> <mark>tango<\/mark> <mark>alpha<\/mark>/);
    });

    test('a long query over many calls with long notes is ranked at once (ranking no longer costs 45 ms per matching call)', async () => {
      // ts_rank_cd runs on every matching call, not only the page's, and its cost grows steeply with
      // the query's words: 80 words over 20 000 characters of notes took 45 ms per call on
      // PostgreSQL 15, so a user with a few thousand such calls held the database for minutes per search.
      const words = ['yak', 'xeno', 'whale', 'vine', 'urn', 'zest', 'amber', 'basil', 'cedar', 'dune', 'ember', 'fern', 'gull', 'hazel', 'iris', 'jade', 'kelp', 'lark', 'maple', 'nut'];
      let notes = '';
      for (let i = 0; notes.length + 10 < 20_000; i++) notes += `${words[i % words.length]} `;
      const db = t.service.ctx.database.db;
      const ids: string[] = [];
      for (let i = 0; i < 150; i++) ids.push(await insertCall(t, t.userA, { title: `Drill ${i}` }));
      await db.updateTable('calls').set({ notes: notes.trim() }).where('id', 'in', ids).execute();
      const q = [...words, ...words, ...words, ...words].join(' ');
      assert.ok(q.length <= 500);
      const r = await search(q, t.tokenA, '&limit=5');
      assert.equal(r.status, 200);
      assert.equal(r.body.items.length, 5);
      for (const h of r.body.items) {
        assert.ok(ids.includes(h.callId), h.title);
        assert.match(h.snippet, /<mark>/);
      }
      // Ranking by the words OR-ed is what makes this linear in the text (bench/search.ts measures the time).
      await assertRankedByWordsOred(r.body.items[0].callId, r.body.items[0].rank, words);
    });

    test('the OpenAPI document describes search, transcript export and conversation metrics', async () => {
      const doc = (await t.request('GET', '/openapi.json')).body;
      const search = doc.paths['/api/calls/search'].get;
      assert.deepEqual(search.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name).sort(), ['cursor', 'limit', 'q']);
      assert.ok(search.responses['200'].content['application/json'].schema.properties.items);
      assert.ok(search.responses['400']);
      const transcript = doc.paths['/api/calls/{id}/transcript'].get;
      assert.ok(transcript.parameters.some((p: { in: string; name: string }) => p.in === 'query' && p.name === 'format'));
      assert.deepEqual(Object.keys(transcript.responses['200'].content).sort(), ['application/json', 'application/x-subrip', 'text/plain', 'text/vtt']);
      const analysis = JSON.stringify(doc.paths['/api/calls/{id}/analysis'].get.responses['200']);
      assert.match(analysis, /conversationMetrics/);
      assert.match(analysis, /wordsPerMinute/);
      assert.ok(doc.paths['/api/analytics/vibe'].get.responses['200'].content['application/json'].schema.properties.conversationMetrics);
      for (const section of ['## Search', '## Conversation metrics', 'format=vtt|srt|txt']) assert.ok(doc.info.description.includes(section), section);
    });

    test('validation: q required and not blank, limit within 1..50, cursor well-formed; stop words alone match nothing', async () => {
      for (const p of ['/api/calls/search', '/api/calls/search?q=', '/api/calls/search?q=%20%20', '/api/calls/search?q=x&limit=0', '/api/calls/search?q=x&limit=51', '/api/calls/search?q=x&cursor=nonsense', `/api/calls/search?q=${'a'.repeat(501)}`]) {
        const r = await t.request('GET', p, { token: t.tokenA });
        assert.equal(r.status, 400, p);
        assert.equal(r.body.error.code, 'validation_failed', p);
      }
      const unauth = await t.request('GET', '/api/calls/search?q=x');
      assert.equal(unauth.status, 401);
      const stop = await search('the and of');
      assert.equal(stop.status, 200);
      assert.deepEqual(stop.body.items, []);
      // Web-search syntax: unbalanced quotes and operators are not errors.
      for (const q of ['"unclosed', 'or', '-', '!!', '(a']) assert.equal((await search(q)).status, 200, q);
    });
  });
}

describe('search terms stay out of the logs', () => {
  test('the request log line carries the path without the query string', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const idp = await TestIdp.start();
    const t = await startTestService({ env: idp.env(), log });
    try {
      const token = await idp.token({ sub: 'search-log' });
      const r = await t.request('GET', '/api/calls/search?q=Marigold%20Ostrowski', { token });
      assert.equal(r.status, 200);
      const logged = lines.join('\n');
      assert.match(logged, /"url":"\/api\/calls\/search"/);
      assert.doesNotMatch(logged, /Marigold|Ostrowski/);
    } finally {
      await t.stop();
      await idp.stop();
    }
  });
});
