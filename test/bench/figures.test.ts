// The pieces that published figures rest on: label-source scoring, the word alignment and the
// logistic fit of the fitting scripts, headline markers, the degraded recogniser that shows the
// end-to-end thresholds bite, and the recognition cache's key.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLabelSources } from '../support/label-sources.js';
import { degradedTranscriber, CORRUPT_WORD } from '../support/degraded-recogniser.js';
import { recogniserVersion } from '../support/recognition-cache.js';
import { rightWords } from '../../bench/support/word-alignment.js';
import { fitLogistic } from '../../bench/fit-confidence.js';
import { analysisHeadlines, headlineMarker, headlineTable, readHeadlineMarkers, voiceHeadline, type HeadlineRow } from '../../bench/support/headline.js';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../support/corpus.js';
import type { Transcriber } from '../../src/pipeline/types.js';

const truth = (a: string[], b: string[]) => ({ expect: { naming: { expectedLabelSources: { A: a, B: b } } } });
const score = (a: string | null, b: string | null) => ({ details: { roles: { A: { hypSpeaker: a }, B: { hypSpeaker: b } } } });

describe('label sources against the corpus expectations', () => {
  test('each truth speaker is checked through the scorer\'s mapping, not by position', () => {
    const transcript = { speakers: [{ speakerId: 'spk_0', labelSource: 'GREETING_MATCH' }, { speakerId: 'spk_1', labelSource: 'BY_ELIMINATION' }] };
    // The scorer mapped truth A to spk_1 and B to spk_0.
    const r = checkLabelSources(truth(['BY_ELIMINATION'], ['GREETING_MATCH']), transcript, score('spk_1', 'spk_0'));
    assert.equal(r.agree, 2);
    assert.equal(r.of, 2);
    assert.equal(r.positional, false);
    const swapped = checkLabelSources(truth(['BY_ELIMINATION'], ['GREETING_MATCH']), transcript, score('spk_0', 'spk_1'));
    assert.equal(swapped.agree, 0);
  });

  test('a positional guess is counted apart, and against evidence when the corpus expects evidence', () => {
    const transcript = { speakers: [{ speakerId: 'spk_0', labelSource: 'POSITIONAL_FALLBACK' }, { speakerId: 'spk_1', labelSource: 'POSITIONAL_FALLBACK' }] };
    const expected = checkLabelSources(truth(['POSITIONAL_FALLBACK'], ['POSITIONAL_FALLBACK']), transcript, score('spk_0', 'spk_1'));
    assert.deepEqual([expected.agree, expected.positional, expected.positionalAgainstEvidence], [2, true, false]);
    const against = checkLabelSources(truth(['BY_ELIMINATION'], ['NAME_MENTION', 'USER_PROFILE']), transcript, score('spk_0', 'spk_1'));
    assert.deepEqual([against.agree, against.positional, against.positionalAgainstEvidence], [0, true, true]);
  });

  test('an unmapped truth speaker (one speaker found) disagrees', () => {
    const r = checkLabelSources(truth(['GREETING_MATCH'], ['BY_ELIMINATION']), { speakers: [{ speakerId: 'spk_0', labelSource: 'GREETING_MATCH' }] }, score('spk_0', null));
    assert.equal(r.agree, 1);
    assert.equal(r.bySpeaker.B.got, null);
  });
});

describe('fitting helpers', () => {
  const normalize = (s: string) => s.toLowerCase().replace(/[^a-z0-9 ]/g, ' ').split(/\s+/).filter(Boolean);

  test('recognised words are marked right by alignment to the truth text', () => {
    assert.deepEqual(rightWords(['hello', 'there', 'word', 'friend'], 'hello there my friend', normalize), [true, true, false, true]);
    // An insertion and a deletion.
    assert.deepEqual(rightWords(['hello', 'extra', 'there'], 'hello there friend', normalize), [true, false, true]);
  });

  test('the logistic fit recovers the curve the data was drawn from', () => {
    const xs: number[] = [];
    const ys: boolean[] = [];
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 20000; i++) {
      const x = -120000 + 140000 * rand();
      xs.push(x);
      ys.push(rand() < 1 / (1 + Math.exp(-(x + 60000) / 20000)));
    }
    const fit = fitLogistic(xs, ys);
    assert.ok(Math.abs(fit.midpoint + 60000) < 3000, `midpoint ${fit.midpoint}`);
    assert.ok(Math.abs(fit.scale - 20000) < 2000, `scale ${fit.scale}`);
  });
});

test('headline markers survive the round trip through a report', () => {
  const row: HeadlineRow = { figure: 'word error rate, mono16k.wav', value: '15.5 %', data: 'synthetic corpus -- 12 calls', sample: 'in-sample', voices: 'synthetic', section: 'speech.md#mono16kwav' };
  const text = `| table |\n\n${headlineMarker(row)}\nmore text`;
  assert.ok(!headlineMarker(row).slice(4, -3).includes('--'), 'no "--" inside an HTML comment');
  const [back] = readHeadlineMarkers(text);
  assert.equal(back.value, '15.5 %');
  assert.equal(back.sample, 'in-sample');
});

describe('headline', () => {
  const row = (over: Partial<HeadlineRow>): HeadlineRow => ({ figure: 'f', value: 'v', data: 'd', sample: 'in-sample', voices: 'synthetic', section: 's.md', ...over });

  test('held-out lines come first, and a real-voice value sits beside the synthetic one of the same figure', () => {
    const table = headlineTable([
      row({ figure: 'word error rate', value: '15 %' }),
      row({ figure: 'voice decisions', value: '100 %', section: 'voice.md' }),
      row({ figure: 'voice decisions', value: '77 %', sample: 'held-out', voices: 'real', section: 'voice-real.md' }),
    ]);
    assert.equal(table.length, 4);
    const [first, second] = table.slice(2).map((l) => l.split('|').map((c) => c.trim()));
    assert.equal(first[2], 'voice decisions');
    assert.equal(first[1], '**held-out** / in-sample');
    assert.equal(first[3], '**held-out**: 77 %', 'real-voice column');
    assert.equal(first[4], 'in-sample: 100 %', 'synthetic column');
    assert.equal(second[2], 'word error rate');
    assert.equal(second[4], '15 %', 'one sample kind: no label on the value');
  });

  test('analysis and voice lines are read from the printed table rows', () => {
    const heldout = '| call.m4a (AAC 32 kbit/s) | 52.6 (10/19) | 71.4 (4 extra) | 83.3 | 6/18 | 0/2 | 0/6 | 1/3 | 13/16 | 16/16 | 0 | 2/16 | 16/16 |';
    const rows = analysisHeadlines(heldout, { data: 'd', sample: 'held-out', section: 'a.md', rolesColumns: true }).flatMap((m) => readHeadlineMarkers(m));
    assert.deepEqual(rows.map((r) => [r.figure, r.value, r.voices]), [
      ['analysis: action-item recall / precision, call.m4a', '52.6 % (10/19) / 71.4 % (4 extra)', 'synthetic'],
      ['analysis calls with roles / naming right (speech stage), call.m4a', '13/16 / 16/16', 'synthetic'],
    ]);
    const text = analysisHeadlines('| ground truth | 100.0 (11/11) | 100.0 (0 extra) | 100.0 |', { data: 'd', sample: 'in-sample', section: 'a.md', rolesColumns: false }).flatMap((m) => readHeadlineMarkers(m));
    assert.deepEqual(text.map((r) => [r.figure, r.voices]), [['analysis: action-item recall / precision, exact dialogue text (no recognition)', 'none']]);
    const [voice] = readHeadlineMarkers(voiceHeadline('| 16 kHz | 1273/2016 (63.1 %) | 28 | 1118/6048 (18.5 %) |', { data: 'd', sample: 'held-out', section: 'v.md', embedder: 'e' }));
    assert.equal(voice.figure, 'voice match decisions right, mono16k (false matches when the owner is absent)');
    // (1273 named + 6048 - 1118 rightly unnamed) / 8064 trials
    assert.equal(voice.value, '76.9 % (1118/6048; owner named 1273/2016), e');
    assert.equal(voice.voices, 'real');
  });
});

test('every file in docs/bench/ is written by a benchmark of bench/run.ts', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--list'], { cwd: projectRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const owned = new Set(['README.md', 'speed.md', 'long-calls/', ...[...r.stdout.matchAll(/-> docs\/bench\/(\S+)/g)].map((m) => m[1])]);
  const dir = path.join(projectRoot, 'docs/bench');
  const present = fs.readdirSync(dir, { withFileTypes: true }).map((e) => e.name + (e.isDirectory() ? '/' : ''));
  assert.ok(present.length > 5, 'docs/bench/ has its reports');
  assert.deepEqual(present.filter((f) => !owned.has(f)), [], 'files no benchmark writes would not come back from an empty folder');
});

/** `npm run bench:x -- a`, `npx tsx bench/x.ts a`, `node --expose-gc --import tsx bench/x.ts a` (or `node --import tsx --expose-gc ...`) -> `bench/x.ts a`. */
function scriptCommand(command: string, scripts: Record<string, string>): string {
  let c = command.trim();
  const npm = /^npm run (\S+)(?: -- (.*))?$/.exec(c);
  if (npm && scripts[npm[1]]) c = `${scripts[npm[1]]}${npm[2] ? ` ${npm[2]}` : ''}`;
  // Node's own options may come in any order around `--import tsx`
  return c.replace(/^npx tsx /, '').replace(/^node (?:(?:--import tsx|--[\w-]+(?:=\S+)?) )+/, '');
}

test('every report was measured by the commands bench/run.ts runs for it, so it comes back with the same shape', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--commands'], { cwd: projectRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const expected = new Map<string, Set<string>>();
  for (const line of r.stdout.trim().split('\n')) {
    const [report, command] = line.split('\t');
    expected.set(report, (expected.get(report) ?? new Set()).add(command));
  }
  const scripts = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const dir = path.join(projectRoot, 'docs/bench');
  const stray: string[] = [];
  for (const [report, commands] of expected) {
    const file = path.join(dir, report);
    if (!fs.existsSync(file)) continue; // not measured yet on this checkout: run.ts says so in the headline
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/Measured by `([^`]+)`/g)) {
      const c = scriptCommand(m[1], scripts);
      if (!commands.has(c) && !stray.includes(`${report}: ${c}`)) stray.push(`${report}: ${c}`);
    }
  }
  assert.deepEqual(stray, [], 'a report measured with other arguments than bench/run.ts gives would not come back the same from an empty docs/bench: re-measure it with `npm run bench -- --only NAME` or change run.ts');
});

test('the degraded recogniser replaces about the asked share of words, the same ones every time', async () => {
  const words = Array.from({ length: 2000 }, (_, i) => ({ word: `w${i % 50}`, start: i, end: i + 0.5, confidence: 1 }));
  const inner: Transcriber = { provider: 'fake', model: 'fake', transcribe: async () => ({ words, language: 'en', provider: 'fake', model: 'fake' }) };
  const degraded = degradedTranscriber(inner, 0.2);
  const a = await degraded.transcribe({ wavPath: '', durationSeconds: 0 });
  const b = await degraded.transcribe({ wavPath: '', durationSeconds: 0 });
  const share = a.words.filter((w) => w.word === CORRUPT_WORD).length / words.length;
  assert.ok(share > 0.17 && share < 0.23, `share ${share}`);
  assert.deepEqual(a.words, b.words);
  assert.deepEqual(a.words.map((w) => w.start), words.map((w) => w.start), 'times unchanged');
});

test('the recognition cache key changes with the recogniser\'s settings', () => {
  assert.notEqual(recogniserVersion(['-lw', '5']), recogniserVersion(['-lw', '6']));
  assert.equal(recogniserVersion(['-lw', '5']), recogniserVersion(['-lw', '5']));
});

// A measured figure in a page written by hand goes stale unseen; those pages point at the report
// that carries it. These shapes are what measurements look like in this project's reports; plain
// settings and limits ("60 %", "30 s", "0.85") do not match them.
const MEASURED = [
  /\b\d+\.\d+ ?%/g, // a rate with a decimal: 61.5 %
  /\b(?:RTF|WER)\s*[=:<>≈]*\s*\d/g, // RTF 0.53, WER 15
  /\b\d+ ?\/ ?\d+ (?:calls|words|trials|speakers|voices)\b/g, // 72/72 calls
  /\b\d+(?:\.\d+)? \/ \d+(?:\.\d+)? \/ \d+(?:\.\d+)? ?%/g, // 4 / 3 / 1 % per encoding
  /\b\d[\d,.]* ?(?:req\/s|requests\/s|requests per second|calls\/s)/g, // 1,234 req/s
  /\bpeak (?:RSS )?(?:of )?\d/gi, // peak RSS 339 MB
  /\b\d+(?:\.\d+)? ?[x×] real[- ]time/g, // 2.2 x real time
];
const measuredFigures = (text: string) => MEASURED.flatMap((re) => [...text.matchAll(re)].map((m) => m[0]));

describe('pages written by hand carry no measured figure', () => {
  test('the shapes catch measurements and pass settings', () => {
    assert.deepEqual(measuredFigures('names the owner in 61.5 / 55.4 / 37.2 % of calls, RTF 0.53, WER: 15 %, in 72/72 calls'),
      ['37.2 %', 'RTF 0', 'WER: 1', '72/72 calls', '61.5 / 55.4 / 37.2 %']);
    assert.deepEqual(measuredFigures('1,200 req/s, peak RSS 339 MB, 2.2 x real time'), ['1,200 req/s', 'peak RSS 3', '2.2 x real time']);
    assert.deepEqual(measuredFigures('in at least 60 % of the speech frames, 30 s, threshold 0.85, gates 0 / 0.75 / 0.8, limits 3 / 2 s / 6 s'), []);
  });

  test('README.md and docs/*.md outside docs/bench point at the reports instead', () => {
    // docs/benchmarks.md is assembled by bench/run.ts from docs/bench/, so it is a report itself.
    const pages = ['README.md', ...fs.readdirSync(path.join(projectRoot, 'docs')).filter((f) => f.endsWith('.md') && f !== 'benchmarks.md').map((f) => `docs/${f}`)];
    assert.ok(pages.length > 3, 'the hand-written pages are found');
    // Fitting targets and settings that have a measurement's shape.
    const allowed = new Set(['docs/voice-embedders.md: 0.1 %']);
    const found = pages.flatMap((page) => measuredFigures(fs.readFileSync(path.join(projectRoot, page), 'utf8')).map((f) => `${page}: ${f}`));
    assert.deepEqual(found.filter((f) => !allowed.has(f)), [], 'a measured figure belongs in a report of docs/bench/ (written by a script); point at its table');
  });
});
