// GET /api/calls/:id/transcript?format=vtt|srt|txt: the WebVTT file read back by a WebVTT parser
// (webvtt-parser, with voice tags), SubRip numbering and times, plain text, headers, and the
// unchanged JSON default.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import contentDisposition from 'content-disposition';
// @ts-expect-error webvtt-parser ships no type declarations (a CommonJS module: default import only)
import webvtt from 'webvtt-parser';
import { dbModes } from '../support/service.js';
import { withTwoUsers } from '../support/two-users.js';
import { insertArtifact, insertCall, seedCompletedCall, transcriptFor } from '../fixtures/seed.js';
import { exportFileName, exportableSegments, toSrt, toWebVtt } from '../../src/domain/transcript-export.js';

interface VttCue { id: string; startTime: number; endTime: number; text: string; tree: { children: Array<{ type: string; name?: string; value?: string; children?: Array<{ type: string; value: string }> }> } }
// The parser's default entity table is a partial one; its full HTML table gives spec behaviour.
const entities = JSON.parse(fs.readFileSync(createRequire(import.meta.url).resolve('webvtt-parser/html-entities.json'), 'utf8'));
function parseVtt(text: string): { cues: VttCue[]; errors: unknown[] } {
  return new webvtt.WebVTTParser(entities).parse(text, 'subtitles');
}

/** The seeded transcript with a long, awkward tail: past one hour, non-ASCII names, markup characters, a line break. */
function longTranscript(callId: string) {
  const tr = transcriptFor(callId);
  tr.segments.push(
    { ...tr.segments[0], id: 'seg_0009', speakerDisplayName: 'Zoë Ångström', speaker: 'Zoë Ångström', speakerLabel: 'Zoë Ångström', startSeconds: 3599.5, endSeconds: 3601.25, text: 'Prices < 5 € & "terms" --> next\nline, ok?' },
    { ...tr.segments[1], id: 'seg_0010', startSeconds: 3725.001, endSeconds: 3725.001, text: 'Bye for now.' },
  );
  return tr;
}

for (const mode of await dbModes()) {
  describe(`transcript export (${mode} database)`, () => {
    let callId: string;

    const t = withTwoUsers(mode, { a: { sub: 'export-a', name: 'Olivia Park' }, b: { sub: 'export-b' } });
    before(async () => {
      callId = await seedCompletedCall(t, t.userA, { title: 'Démo: fleet/plan "Q3"' });
      await insertArtifact(t, t.userA, callId, 'transcript', longTranscript(callId));
    });

    const get = (id: string, format?: string, token = t.tokenA) => t.request('GET', `/api/calls/${id}/transcript${format ? `?format=${format}` : ''}`, { token });

    test('vtt: a valid WebVTT file with voice tags, segment ids as cue ids and times past one hour', async () => {
      const r = await get(callId, 'vtt');
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'text/vtt; charset=utf-8');
      const { cues, errors } = parseVtt(r.text);
      assert.deepEqual(errors, []);
      assert.equal(cues.length, 10);
      assert.deepEqual(cues.map((c) => c.id), Array.from({ length: 10 }, (_, i) => `seg_${String(i + 1).padStart(4, '0')}`));
      assert.equal(cues[0].startTime, 0);
      assert.equal(cues[0].endTime, 4.5);
      const voices = cues.map((c) => c.tree.children[0]);
      assert.ok(voices.every((v) => v.type === 'object' && v.name === 'v'));
      assert.equal((voices[0] as { value?: string }).value, 'Olivia Park');
      assert.equal((voices[1] as { value?: string }).value, 'Bayview Logistics');
      assert.equal((voices[8] as { value?: string }).value, 'Zoë Ångström');
      // Escaped markup reads back as the original text; the line break became a space.
      assert.equal(voices[8].children!.map((c) => c.value).join(''), 'Prices < 5 € & "terms" --> next line, ok?');
      assert.match(r.text, /\n01:00:01\.250 -->|00:59:59\.500 --> 01:00:01\.250/);
      assert.equal(cues[8].startTime, 3599.5);
      assert.equal(cues[8].endTime, 3601.25);
      // A zero-length segment still makes a cue that ends after it starts.
      assert.equal(cues[9].startTime, 3725.001);
      assert.ok(cues[9].endTime > cues[9].startTime);
      assert.match(r.text, /^WEBVTT\n\n/);
    });

    test('srt: numbered from 1, well-formed times with a comma, speaker prefixes', async () => {
      const r = await get(callId, 'srt');
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/x-subrip; charset=utf-8');
      const blocks = r.text.trimEnd().split('\n\n');
      assert.equal(blocks.length, 10);
      let previousStart = -1;
      blocks.forEach((block, i) => {
        const lines = block.split('\n');
        assert.equal(lines.length, 3, block);
        assert.equal(lines[0], String(i + 1));
        const m = /^(\d{2,}):([0-5]\d):([0-5]\d),(\d{3}) --> (\d{2,}):([0-5]\d):([0-5]\d),(\d{3})$/.exec(lines[1]);
        assert.ok(m, lines[1]);
        const ms = (a: number) => ((Number(m[a]) * 60 + Number(m[a + 1])) * 60 + Number(m[a + 2])) * 1000 + Number(m[a + 3]);
        assert.ok(ms(5) > ms(1), lines[1]);
        assert.ok(ms(1) >= previousStart);
        previousStart = ms(1);
      });
      assert.equal(blocks[0].split('\n')[2], 'Olivia Park: Good morning, Northwind Software, Olivia speaking.');
      assert.equal(blocks[8], '9\n00:59:59,500 --> 01:00:01,250\nZoë Ångström: Prices < 5 € & "terms" --> next line, ok?');
      assert.equal(blocks[9].split('\n')[1], '01:02:05,001 --> 01:02:05,002');
    });

    test('txt: the cleanText line format, hours past one hour; a UTF-8 file name with an ASCII fallback', async () => {
      const r = await get(callId, 'txt');
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
      const lines = r.text.trimEnd().split('\n');
      assert.equal(lines.length, 10);
      assert.equal(lines[0], '[00:00 - 00:04] Olivia Park: Good morning, Northwind Software, Olivia speaking.');
      assert.equal(lines[8], '[59:59 - 01:00:01] Zoë Ångström: Prices < 5 € & "terms" --> next line, ok?');
      assert.equal(Buffer.from(r.text, 'utf8').toString('utf8'), r.text);

      const header = r.headers.get('content-disposition')!;
      assert.match(header, /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
      const parsed = contentDisposition.parse(header);
      assert.equal(parsed.type, 'attachment');
      assert.equal(parsed.parameters.filename, 'Démo fleet plan Q3.txt');
      for (const f of ['vtt', 'srt']) {
        const h = contentDisposition.parse((await get(callId, f)).headers.get('content-disposition')!);
        assert.equal(h.parameters.filename, `Démo fleet plan Q3.${f}`);
      }
      // Without any title: call-<id prefix>.
      const untitled = await seedCompletedCall(t, t.userA, { title: null });
      await t.service.ctx.database.db.updateTable('calls').set({ uploadTitle: null, suggestedTitle: null }).where('id', '=', untitled).execute();
      const u = await get(untitled, 'srt');
      assert.equal(contentDisposition.parse(u.headers.get('content-disposition')!).parameters.filename, `call-${untitled.slice(0, 8)}.srt`);
      assert.doesNotMatch(u.headers.get('content-disposition')!, /filename\*/);
    });

    test('a title whose 100-character cut falls inside an emoji, a ZWJ sequence, a flag or a combining mark: 200, cut between whole characters', async () => {
      const pad = 'a'.repeat(99);
      const titles = {
        'emoji (surrogate pair)': `${pad}😀 tail`,
        'ZWJ family': `${pad}👩‍👩‍👧‍👦 tail`,
        'skin tone modifier': `${pad}👍🏽 tail`,
        'regional-indicator flag': `${pad}🇫🇷 tail`,
        'combining marks (no precomposed form)': `${pad}q\u0307\u0323 tail`,
        'emoji only': '😀'.repeat(120),
        'one letter carrying 500 combining marks': `x${'\u0301'.repeat(500)}`,
      };
      const graphemes = (s: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);
      for (const [what, title] of Object.entries(titles)) {
        const id = await seedCompletedCall(t, t.userA, { title });
        for (const f of ['txt', 'vtt', 'srt']) {
          const r = await get(id, f);
          assert.equal(r.status, 200, `${what} (${f}): ${r.text.slice(0, 200)}`);
          const header = r.headers.get('content-disposition')!;
          const name = contentDisposition.parse(header).parameters.filename;
          assert.ok(name.endsWith(`.${f}`), what);
          const base = name.slice(0, -(f.length + 1));
          assert.doesNotMatch(base, /\uFFFD|\p{Cs}/u, `${what}: no replacement character, no lone surrogate`);
          if (base.startsWith('call-')) {
            // A single character larger than the byte budget leaves no title to use.
            assert.equal(what, 'one letter carrying 500 combining marks');
            continue;
          }
          const cut = graphemes(base);
          assert.ok(cut.length <= 100, `${what}: at most 100 characters (${cut.length})`);
          assert.ok(Buffer.byteLength(name) <= 255, `${what}: fits a 255-byte file name`);
          assert.deepEqual(cut, graphemes(title.normalize('NFC')).slice(0, cut.length), `${what}: a prefix of whole characters`);
          assert.ok(cut.length >= 99 || Buffer.byteLength(base) > 190, `${what}: cut only as far as needed (${cut.length})`);
        }
      }
    });

    test('no format, or format=json, serves the stored JSON unchanged', async () => {
      const stored = longTranscript(callId);
      for (const f of [undefined, 'json']) {
        const r = await get(callId, f);
        assert.equal(r.status, 200);
        assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(r.headers.get('content-disposition'), null);
        const { createdAt: _a, ...rest } = r.body;
        const { createdAt: _b, ...expected } = stored;
        assert.deepEqual(rest, expected);
      }
    });

    test('validation, ownership and status errors', async () => {
      const bad = await get(callId, 'docx');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'validation_failed');
      for (const [id, token] of [[crypto.randomUUID(), t.tokenA], [callId, t.tokenB]] as const) {
        const r = await get(id, 'vtt', token);
        assert.equal(r.status, 404);
        assert.equal(r.body.error.code, 'call_not_found');
      }
      const queued = await insertCall(t, t.userA, { status: 'TRANSCRIBING' });
      const q = await get(queued, 'srt');
      assert.equal(q.status, 422);
      assert.equal(q.body.error.code, 'call_not_completed');
    });
  });
}

test('a stored transcript of another shape exports what it can instead of failing', () => {
  const segments = exportableSegments({ segments: [{ id: 'seg_0001', startSeconds: 1, endSeconds: 2, speaker: 'Ann', text: 'Hi.' }, null, { text: 42, startSeconds: 'x' }] });
  assert.deepEqual(segments, [
    { id: 'seg_0001', startSeconds: 1, endSeconds: 2, speakerDisplayName: 'Ann', text: 'Hi.' },
    { id: 'seg_0002', startSeconds: 0, endSeconds: 0, speakerDisplayName: '', text: '' },
  ]);
  assert.equal(toSrt(segments), '1\n00:00:01,000 --> 00:00:02,000\nAnn: Hi.\n');
  assert.deepEqual(exportableSegments({}), []);
});

test('exportFileName keeps whole characters and replaces a lone surrogate', () => {
  assert.equal(exportFileName(`${'a'.repeat(99)}😀`, '12345678-aaaa', 'txt'), `${'a'.repeat(99)}😀.txt`);
  assert.equal(exportFileName(`${'a'.repeat(99)}b😀`, '12345678-aaaa', 'txt'), `${'a'.repeat(99)}b.txt`);
  assert.equal(exportFileName(`${'a'.repeat(98)}e\u0301\u0301zz`, '12345678-aaaa', 'srt'), `${'a'.repeat(98)}\u00e9\u0301z.srt`);
  assert.equal(exportFileName('ab\ud83dcd', '12345678-aaaa', 'vtt'), 'ab cd.vtt');
  assert.doesNotThrow(() => encodeURIComponent(exportFileName('\udc00'.repeat(150), '12345678-aaaa', 'vtt')));
});

test('an empty transcript exports as an empty but valid file', () => {
  assert.deepEqual(parseVtt(toWebVtt([])).errors, []);
  assert.equal(toSrt([]), '');
});
