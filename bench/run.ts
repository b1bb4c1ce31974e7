// Runs the benchmarks one after another and rebuilds every published figure: each report in
// docs/bench/ is written by a script (directly, or here from a script's printed tables), stamped
// with its provenance; the headline table in docs/bench/README.md is assembled from the headline
// markers the reports carry (bench/support/headline.ts); docs/benchmarks.md concatenates them all.
//
//   npm run bench                          # everything (hours on 2 cores; speed ones need a quiet machine)
//   npm run bench -- --only speech,voice   # some of them (names below), then re-assemble
//   npm run bench -- --assemble-only       # only the headline and docs/benchmarks.md
//   npm run bench -- --list                # the names
//   npm run bench -- --commands            # each report and the script commands run.ts runs for it
//
// Deleting docs/bench/ and running `npm run bench` brings every report back (docs/bench/README.md's
// text is kept in this file for that reason).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../test/support/corpus.js';
import { provenanceLine, startProvenance, type SampleKind } from './support/provenance.js';
import { headlineMarker, headlineTable, readHeadlineMarkers, type HeadlineRow } from './support/headline.js';
import { devIds, HELD_OUT_IDS } from './support/analysis-sets.js';

/** A script that writes its own report. */
interface WritingBench {
  name: string;
  kind: 'writes';
  args: string[];
  /** More runs after `args` whose parts land in the same report (e.g. one file per variant). */
  moreArgs?: string[][];
  report: string;
  /**
   * For a report that several scripts write a block of each (analysis.md): the text of the file
   * around the blocks, written when the file is missing, so the report regenerates from an empty
   * folder with the same shape.
   */
  frame?: string;
  /** Speed benchmarks: meaningless on a loaded machine. */
  speed?: boolean;
  /** For the provenance line run.ts adds when the script's report carries none of its own. */
  dataset: string;
  sample: SampleKind;
}

/** A script that prints Markdown tables on stdout: run.ts writes the report around them. */
interface PrintingBench {
  name: string;
  kind: 'prints';
  report: string;
  title: string;
  intro: string;
  runs: Array<{ heading: string; args: string[]; dataset: string; sample: SampleKind; note?: string; headline?: (stdout: string) => HeadlineRow[] }>;
}

type Bench = WritingBench | PrintingBench;

const SYNTHETIC = 'synthetic corpus (12 calls, flite voices)';
const REAL = "real-voice set (9 recordings of real people; the diarizer's speaker-count thresholds were set on it)";

/** The `| **mean** |`-style summary lines of diarization-dev's table: tier -> attribution %. */
function meanAttribution(stdout: string, tierColumn = 0, valueColumn = 5): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const line of stdout.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < valueColumn + 2 || !/^\d/.test(cells[valueColumn + 1] ?? '')) continue;
    const tier = cells[tierColumn + 1];
    const v = Number(cells[valueColumn + 1]);
    if (Number.isFinite(v)) out.set(tier, [...(out.get(tier) ?? []), v]);
  }
  return out;
}

/** The two diarization scripts name their tiers differently; the headline names the corpus file. */
const TIER_FILES: Record<string, string> = { mono: 'mono16k.wav', mono16k: 'mono16k.wav', stereo: 'stereo.wav', m4a: 'call.m4a', phone: 'phone8k.wav', phone8k: 'phone8k.wav', mp3: 'call.mp3', ogg: 'call.ogg' };

function attributionHeadlines(stdout: string, data: string, sample: SampleKind, voices: 'real' | 'synthetic', what: string): HeadlineRow[] {
  const rows: HeadlineRow[] = [];
  for (const [tier, values] of meanAttribution(stdout)) {
    // The headline keeps the four tiers the speech report has; mp3, ogg and the variants are in the report.
    if (!['mono16k.wav', 'stereo.wav', 'call.m4a', 'phone8k.wav'].includes(TIER_FILES[tier] ?? tier)) continue;
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const file = TIER_FILES[tier] ?? tier;
    rows.push({ figure: `diarizer word attribution, ${file} (${what})`, value: `${mean.toFixed(1)} % (min ${Math.min(...values).toFixed(1)})`, data, sample, voices, section: 'diarization.md' });
  }
  return rows;
}

/**
 * docs/bench/analysis.md around the blocks bench/analysis-heldout.ts (`<!-- heldout -->`) and
 * bench/analysis.ts (`<!-- results -->`) write. How the analyzer works and what each measure means is
 * in docs/analysis.md (no figures there).
 */
const ANALYSIS_FRAME = `# Analysis: action items, dictated details, roles

The analyzer (\`src/pipeline/analysis/\`, provider \`embedded\` unless \`ANALYSIS_PROVIDER\` says otherwise)
scored on calls it was never tuned on (**held-out**: the fixed list of \`bench/support/analysis-sets.ts\`),
on the calls it was tuned on (the dev part of \`bench/dialogues/\` and the twelve corpus calls,
**in-sample**), through the speech stage and on the exact dialogue text. What each measure means,
how the calls were written and how the analyzer works: [docs/analysis.md](../analysis.md). Written
by \`npm run bench -- --only analysis-heldout,analysis\`; each table carries its provenance.

<!-- heldout -->
<!-- /heldout -->

## Corpus calls (in-sample): \`bench/analysis.ts\`

<!-- results -->
<!-- /results -->
`;

const BENCHES: Bench[] = [
  { name: 'speech', kind: 'writes', args: ['bench/speech.ts', '--tiers', 'mono16k.wav,stereo.wav,call.m4a,phone8k.wav'], report: 'speech.md', dataset: SYNTHETIC, sample: 'in-sample' },
  {
    name: 'diarization',
    kind: 'prints',
    report: 'diarization.md',
    title: '## Diarization: word attribution and speaker count',
    intro:
      'The diarizer alone, per call, written by `npm run bench -- --only diarization` from the tables of `bench/diarization-dev.ts` (synthetic corpus) and `bench/diarization-real.ts` (real voices). Truth words: the truth turns\' words spread evenly over each turn (the diarizer is measured without the recogniser\'s errors; with the recogniser\'s words: `diarization-asr.md`). Attribution: the share of words on the right speaker (best one-to-one mapping). How the diarizer works and how its thresholds were chosen: `docs/diarization.md`. **In-sample**: the diarizer\'s thresholds were chosen on both sets.',
    runs: [
      {
        heading: 'Synthetic corpus, truth words',
        args: ['bench/diarization-dev.ts', '--tiers', 'mono,stereo,m4a,ogg,mp3,phone', '--truth-words'],
        dataset: SYNTHETIC,
        sample: 'in-sample',
        headline: (out) => attributionHeadlines(out, SYNTHETIC, 'in-sample', 'synthetic', 'truth words'),
      },
      // The stress variants of docs/diarization.md ("How it is measured"), truth words.
      ...(
        [
          ['gapless', 'every turn butted against the next: changes found by voice alone'],
          ['single', 'speaker A alone, the left channel of stereo.wav'],
          ['single-phone', 'speaker A alone, telephone band'],
          ['three', 'four turns of a third voice spliced in'],
          ['long-single', 'every turn of speaker A across the corpus: minutes of one voice'],
          ['long-pair', 'the calls of one voice pair in a row'],
        ] as const
      ).map(([variant, what]) => ({ heading: `Synthetic corpus, variant ${variant} (${what})`, args: ['bench/diarization-dev.ts', '--variant', variant], dataset: SYNTHETIC, sample: 'in-sample' as const })),
      {
        heading: 'Real voices, truth words',
        args: ['bench/diarization-real.ts', '--truth-words'],
        dataset: REAL,
        sample: 'in-sample',
        headline: (out) => attributionHeadlines(out, REAL, 'in-sample', 'real', 'truth words'),
      },
    ],
  },
  {
    name: 'diarization-asr',
    kind: 'prints',
    report: 'diarization-asr.md',
    title: '## Diarization with the recogniser\'s words',
    intro:
      'The diarizer on the synthetic corpus with the words of the pipeline\'s own recogniser (cached by its version and settings in `.cache/diarization-bench`), written by `npm run bench -- --only diarization-asr` from the table of `bench/diarization-dev.ts`. Oracle: the attribution a perfect diarizer would reach with these words. **In-sample**.',
    runs: [{ heading: 'Synthetic corpus, recogniser words', args: ['bench/diarization-dev.ts', '--tiers', 'mono,stereo,m4a'], dataset: SYNTHETIC, sample: 'in-sample' }],
  },
  {
    name: 'names',
    kind: 'prints',
    report: 'names.md',
    title: '## Name recognition: the per-call dictionary',
    intro:
      'Written by `npm run bench -- --only names` from the table of `bench/names.ts`: every corpus call recognised by pocketsphinx twice, without and with the call\'s names (user displayName, contactName) as its vocabulary; a name word counts when the recognised text contains it. WER by the corpus scorer over the whole call (one speaker). The real-voice set says no names, so it is not measured here. **In-sample**: the dictionary rules were written looking at these calls\' names.',
    runs: [{ heading: 'Synthetic corpus', args: ['bench/names.ts', '--tiers', 'mono16k,m4a'], dataset: SYNTHETIC, sample: 'in-sample' }],
  },
  {
    // Measures the phrase list alone (the model shipped until session 23). The shipped text (phrase
    // list + dev dialogues) was compared with it out of sample in session 23 by `fit-language-model.ts
    // --no-general --text phrases,phrases+dev --lambda 0.6 --eval-ids <retired set 8> --exclude-ids
    // <retired set 7>` (figures in call-language-model.ts); make that this entry's command when the
    // report can be re-measured (about an hour of recognition on an idle machine).
    name: 'language-model',
    kind: 'prints',
    report: 'language-model.md',
    title: '## The phone-call language model',
    intro:
      "Written by `npm run bench -- --only language-model` from the tables of `bench/fit-language-model.ts`: the recogniser's first pass with Debian's general-English model (weight 1) and with the phone-call mixture (`src/pipeline/transcription/call-language-model.ts`, phrase list `call-phrases.txt`) at the weights given, pooled WER by the corpus scorer over whole calls (one speaker, no call vocabulary). Neither set is in the phrase list. The weight was chosen on the dev dialogues (so they are **in-sample** for that one number); the corpus's twelve calls are out of sample for the model (the corpus is in-sample for the recogniser's decoder settings).",
    runs: [
      { heading: 'call.m4a (AAC 32 kbit/s)', args: ['--max-old-space-size=8192', 'bench/fit-language-model.ts', '--lambda', '1,0.6', '--tier', 'call.m4a'], dataset: 'bench/dialogues dev part (26 calls) and the synthetic corpus (12 calls), flite voices', sample: 'in-sample' },
      { heading: 'phone8k.wav (8 kHz telephone)', args: ['--max-old-space-size=8192', 'bench/fit-language-model.ts', '--lambda', '1,0.6', '--tier', 'phone8k.wav'], dataset: 'bench/dialogues dev part (26 calls) and the synthetic corpus (12 calls), flite voices', sample: 'in-sample' },
    ],
  },
  { name: 'e2e-thresholds', kind: 'writes', args: ['bench/e2e-thresholds.ts'], report: 'e2e-thresholds.md', dataset: SYNTHETIC, sample: 'in-sample' },
  // Held-out before in-sample: the held-out block of analysis.md and voice-real.md first.
  // The dev part (in-sample, tuned on) on its text only: with 122 dev calls each recognised tier takes
  // about 1.5 hours on 2 cores from a cold cache. Tuning runs them: bench/analysis-heldout.ts --set dev
  // --tiers m4a,phone8k. The held-out part always runs every tier, with the diagnostic `words` tier
  // (the exact words in the recogniser's form) between text and m4a, so that one run tells what the
  // form costs and what recognition errors cost.
  { name: 'analysis-heldout', kind: 'writes', args: ['bench/analysis-heldout.ts', '--tiers', 'm4a,phone8k,text,words', '--dev-tiers', 'text'], report: 'analysis.md', frame: ANALYSIS_FRAME, dataset: `bench/dialogues: ${HELD_OUT_IDS.length} held-out calls (and ${devIds().length} dev calls, in-sample)`, sample: 'held-out' },
  { name: 'analysis', kind: 'writes', args: ['bench/analysis.ts', '--asr'], report: 'analysis.md', frame: ANALYSIS_FRAME, dataset: 'corpus dialogues and the dialogue sets of bench/analysis.ts', sample: 'in-sample' },
  { name: 'voice-real', kind: 'writes', args: ['bench/voice-real.ts'], report: 'voice-real.md', dataset: 'real-voice recordings (bench/voice-real.ts)', sample: 'held-out' },
  { name: 'voice', kind: 'writes', args: ['bench/voice.ts'], report: 'voice.md', dataset: SYNTHETIC, sample: 'in-sample' },
  // The fitted embedder alone (opt-in) and the fused decision (the default) on the same synthetic trials (bench/voice-real.ts points at these reports).
  { name: 'voice-lda', kind: 'writes', args: ['bench/voice.ts', '--embedder', 'v4'], report: 'voice-lda.md', dataset: SYNTHETIC, sample: 'in-sample' },
  { name: 'voice-fused', kind: 'writes', args: ['bench/voice.ts', '--embedder', 'fused'], report: 'voice-fused.md', dataset: SYNTHETIC, sample: 'in-sample' },
  {
    name: 'long-calls',
    kind: 'writes',
    // One file per tier and recogniser in docs/bench/long-calls/, assembled by the script into long-calls.md.
    args: ['bench/long-calls.ts', '--minutes', '10,60,180', '--tier', 'mono16k.wav', '--recognizer', 'mock'],
    moreArgs: [
      ['bench/long-calls.ts', '--minutes', '10,60,180', '--tier', 'stereo.wav', '--recognizer', 'mock'],
      ['bench/long-calls.ts', '--minutes', '10', '--tier', 'mono16k.wav', '--recognizer', 'embedded'],
    ],
    report: 'long-calls.md',
    speed: true,
    dataset: 'long calls assembled from corpus audio',
    sample: 'not-applicable',
  },
  { name: 'search', kind: 'writes', args: ['bench/search.ts'], report: 'search.md', speed: true, dataset: 'seeded calls (bench/search.ts)', sample: 'not-applicable' },
  { name: 'http', kind: 'writes', args: ['bench/http.ts'], report: 'http.md', speed: true, dataset: 'seeded database (bench/http.ts)', sample: 'not-applicable' },
  { name: 'growth', kind: 'writes', args: ['bench/growth.ts'], report: 'growth.md', speed: true, dataset: 'seeded databases of 10 to 100,000 calls', sample: 'not-applicable' },
  { name: 'upload', kind: 'writes', args: ['bench/upload.ts'], report: 'upload.md', speed: true, dataset: 'a 49 MiB WAV', sample: 'not-applicable' },
  { name: 'pipeline', kind: 'writes', args: ['bench/pipeline.ts'], report: 'pipeline.md', speed: true, dataset: 'corpus calls and an 8 s clip', sample: 'not-applicable' },
  { name: 'object-storage', kind: 'writes', args: ['--expose-gc', 'bench/object-storage.ts'], report: 'object-storage.md', speed: true, dataset: 'generated blobs', sample: 'not-applicable' },
  { name: 'analysis-stall', kind: 'writes', args: ['bench/analysis-stall.ts'], report: 'analysis-stall.md', speed: true, dataset: 'a synthetic 3-hour transcript of corpus sentences', sample: 'not-applicable' },
  { name: 'processing-stall', kind: 'writes', args: ['bench/processing-stall.ts'], report: 'processing-stall.md', speed: true, dataset: 'a corpus call looped to 5 minutes', sample: 'not-applicable' },
  { name: 'console', kind: 'writes', args: ['bench/console.ts'], report: 'console.md', speed: true, dataset: 'a seeded 3-hour call', sample: 'not-applicable' },
];

/** Order of the sections in docs/benchmarks.md (speed.md is prose that introduces the speed reports). */
const ORDER = ['speech.md', 'e2e-thresholds.md', 'diarization.md', 'diarization-asr.md', 'names.md', 'language-model.md', 'analysis.md', 'voice-real.md', 'voice.md', 'voice-lda.md', 'voice-fused.md', 'speed.md', 'http.md', 'growth.md', 'upload.md', 'pipeline.md', 'search.md', 'object-storage.md', 'long-calls.md', 'analysis-stall.md', 'processing-stall.md', 'console.md'];

const dir = path.join(projectRoot, 'docs/bench');

/** A leading `--flag` of a bench's args is Node's (e.g. `--expose-gc`): it goes before `--import tsx`. */
function splitNodeFlags(args: string[]): [string[], string[]] {
  return args[0].startsWith('--') ? [[args[0]], args.slice(1)] : [[], args];
}

/** The command line runScript runs, as a report's provenance names it. */
function commandOf(args: string[]): string {
  const [flags, script] = splitNodeFlags(args);
  return ['node', ...flags, '--import', 'tsx', ...script].join(' ');
}

function runScript(args: string[], capture: boolean): string {
  const [flags, script] = splitNodeFlags(args);
  const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', ...script], {
    cwd: projectRoot,
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${script.join(' ')} failed (exit ${r.status})`);
  return capture ? r.stdout : '';
}

/** Only the Markdown table lines of a script's output (progress lines go elsewhere). */
function tablesOf(stdout: string): string {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .join('\n');
}

/**
 * Runs a script that writes its own report; a report without a provenance line of its own (older
 * scripts state only date and load) gets one at its end, measured around the whole run.
 */
function runWriting(b: WritingBench): void {
  const p = startProvenance(b.dataset, b.sample);
  const file = path.join(dir, b.report);
  // Scripts write into docs/bench/ without creating it (it may have been deleted to regenerate).
  fs.mkdirSync(dir, { recursive: true });
  if (b.frame && !fs.existsSync(file)) fs.writeFileSync(file, b.frame);
  const runs = [b.args, ...(b.moreArgs ?? [])];
  for (const args of runs) runScript(args, false);
  if (!fs.existsSync(file)) throw new Error(`${b.args.join(' ')} did not write docs/bench/${b.report}`);
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes('_Measured by `')) fs.writeFileSync(file, `${text.trimEnd()}\n\n${provenanceLine(p.finish(), runs.map(commandOf).join('; '))}\n`);
}

function runPrinting(b: PrintingBench): void {
  const parts = [b.title, '', b.intro, ''];
  const markers: string[] = [];
  for (const run of b.runs) {
    const p = startProvenance(run.dataset, run.sample);
    const out = runScript(run.args, true);
    const command = commandOf(run.args);
    parts.push(`### ${run.heading}`, '', tablesOf(out), '', provenanceLine(p.finish(), command), '');
    if (run.note) parts.push(run.note, '');
    for (const row of run.headline?.(out) ?? []) markers.push(headlineMarker(row));
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, b.report), `${[...parts, ...markers].join('\n').trim()}\n`);
  console.log(`wrote docs/bench/${b.report}`);
}

const SPEED_INTRO = `## Speed: request path, growth, upload and pipeline

Written by \`bench/run.ts\`. The speed benchmarks below (\`npm run bench -- --only ${BENCHES.filter((b) => b.kind === 'writes' && b.speed).map((b) => b.name).join(',')}\`)
are not part of \`npm test\`; each writes its own section, stamped with the commit it measured and
the machine's load average at its start and end. They mean something only on a quiet machine:
with other jobs on the same cores a run measures the other jobs. Compare the rows of one run (a
route against the bare route measured in the same round, CPU milliseconds per request), never
absolute figures across days or machines. \`node --import tsx bench/http.ts --cpu-prof --routes
status\` writes V8 profiles of the service to \`bench/.profiles/\`, and \`node --import tsx
bench/support/profile-top.ts bench/.profiles/*.cpuprofile\` lists self time per function. The
history of the optimisation rounds (what the profiles showed and what changed) is in the git
history of this file and in the commit messages of \`src/store\` and \`src/http\`.`;

const README_INTRO = `# Benchmarks

Every figure in \`docs/bench/\` is written by a script in \`bench/\`; \`npm run bench\` runs them all
(\`--only NAME,...\` some, \`--list\` the names) and rebuilds this page and \`docs/benchmarks.md\`.
Under each table a line says which command measured it, at which commit, on which data, whether
the data is **held-out** (the component never saw it while it was tuned) or **in-sample** (it was
tuned on it), and how loaded the machine was. Accuracy tests never time anything; speed is
measured only here.

Most components were tuned on the same small data they are scored on: the recogniser's decoder
weights and confidence curve, the diarizer's thresholds, the naming rules, the voice threshold and
features and the analyzer's word lists on the twelve synthetic corpus calls and four flite voices;
the diarizer's speaker-count thresholds on the real-voice set too. In-sample figures say how well a
component fits that data, not how it does on new calls. The scripts that refit the tuned constants
are \`bench/fit-*.ts\` (see each file's header).`;

/**
 * The files of docs/bench/ no benchmark writes: a hand-kept file would not come back when the folder
 * is deleted and regenerated, so run.ts names them (and the lead removes them or gives them a script).
 */
function unowned(): string[] {
  const owned = new Set(['README.md', 'speed.md', ...BENCHES.map((b) => b.report)]);
  // long-calls.ts keeps one part per tier and recogniser in long-calls/ and assembles long-calls.md from them.
  const ownedDirs = new Set(['long-calls']);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => (e.isDirectory() ? !ownedDirs.has(e.name) : !owned.has(e.name)))
    .map((e) => e.name + (e.isDirectory() ? '/' : ''));
}

function assemble(): void {
  fs.mkdirSync(dir, { recursive: true });
  const stray = unowned();
  if (stray.length) console.error(`docs/bench/ holds files no benchmark writes (they would not come back from an empty folder): ${stray.join(', ')}`);
  fs.writeFileSync(path.join(dir, 'speed.md'), `${SPEED_INTRO}\n`);
  const rows: Array<HeadlineRow & { report: string }> = [];
  for (const f of ORDER) {
    const file = path.join(dir, f);
    if (!fs.existsSync(file)) continue;
    for (const r of readHeadlineMarkers(fs.readFileSync(file, 'utf8'))) rows.push({ ...r, report: f });
  }
  const table = headlineTable(rows);
  const missing = ORDER.filter((f) => f !== 'speed.md' && !fs.existsSync(path.join(dir, f)));
  const unmarked = ORDER.filter((f) => f !== 'speed.md' && fs.existsSync(path.join(dir, f)) && !rows.some((r) => r.report === f));
  const headline = `## Headline

Copied by \`bench/run.ts\` from the headline markers in the reports (each report's tables carry
their provenance); held-out figures first, real voices beside synthetic ones. A report that sets
no marker has no line here: read it in full.

${rows.length ? table.join('\n') : '_No report carries a headline marker yet: run `npm run bench`._'}
${unmarked.length ? `\nReports that set no headline line (their figures are only in the report): ${unmarked.map((f) => `[${f}](${f})`).join(', ')}.\n` : ''}${missing.length ? `\nNot yet measured on this checkout (run \`npm run bench -- --only ...\`): ${missing.join(', ')}.\n` : ''}`;
  const intro = `${README_INTRO}\n\n${headline}`;
  fs.writeFileSync(path.join(dir, 'README.md'), `${intro.trim()}\n`);
  const parts = ORDER.filter((f) => fs.existsSync(path.join(dir, f))).map((f) => fs.readFileSync(path.join(dir, f), 'utf8').trim());
  fs.writeFileSync(path.join(projectRoot, 'docs/benchmarks.md'), `${intro.trim()}\n\n${parts.join('\n\n')}\n`);
  console.log(`wrote docs/bench/README.md (${rows.length} headline rows), docs/bench/speed.md and docs/benchmarks.md`);
}

function main(): void {
  const argv = process.argv.slice(2);
  if (argv.includes('--commands')) {
    // Every script run behind each report, for test/bench/figures.test.ts: a report measured with
    // other arguments would not come back with the same shape from an empty folder.
    for (const b of BENCHES) {
      const runs = b.kind === 'writes' ? [b.args, ...(b.moreArgs ?? [])] : b.runs.map((r) => r.args);
      for (const args of runs) console.log(`${b.report}\t${args.filter((a, i) => !(i === 0 && a.startsWith('--'))).join(' ')}`);
    }
    return;
  }
  if (argv.includes('--list')) {
    for (const b of BENCHES) console.log(`${b.name}${b.kind === 'writes' && b.speed ? ' (speed: quiet machine only)' : ''} -> docs/bench/${b.report}`);
    return;
  }
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex >= 0 ? argv[onlyIndex + 1]?.split(',') : null;
  const unknown = (only ?? []).filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHES.map((b) => b.name).join(', ')}`);
    process.exit(2);
  }
  if (!argv.includes('--assemble-only')) {
    for (const b of BENCHES) {
      if (only && !only.includes(b.name)) continue;
      console.log(`== ${b.name}`);
      try {
        if (b.kind === 'writes') runWriting(b);
        else runPrinting(b);
      } catch (err) {
        console.error(`${b.name} benchmark failed: ${(err as Error).message}`);
        process.exit(1);
      }
    }
  }
  assemble();
}

main();
