// Analysis on calls nobody tuned it on (issue 28). The dialogues in bench/dialogues/ (corpus format,
// rendered with the corpus's render.sh into .cache/analysis-dialogues/) are split by the fixed list
// in bench/support/analysis-sets.ts: the held-out part is only reported, the dev part is for tuning.
// Each call goes through what the service runs: the speech stage (decode, VAD, recognition,
// diarization, naming; recognitions cached by audio hash + recogniser provider/model) on call.m4a and
// on phone8k.wav, then the configured analyzer (ANALYSIS_PROVIDER: embedded, or openai when a model
// is configured) — plus a text-only tier on the exact dialogue text. One scorer for every analyzer:
// action items (recall, precision, intent, due dates), dictated e-mails and phone numbers recovered,
// roles and naming (score.mjs), grounding violations.
//
//   npx tsx bench/analysis-heldout.ts                      # held-out and dev, all tiers; writes docs
//   npx tsx bench/analysis-heldout.ts --set dev --verbose  # dev only, every miss (tuning)
//   npx tsx bench/analysis-heldout.ts --tiers text         # text tier only (no recogniser)
//   npx tsx bench/analysis-heldout.ts --openai-mock        # the LLM path against the local mock
//   npx tsx bench/analysis-heldout.ts --no-write           # print only
//   npx tsx bench/analysis-heldout.ts --dev-tiers text     # dev part on the dialogue text only
//   npx tsx bench/analysis-heldout.ts --set dev --tiers text,words --no-write   # what the recogniser's form alone costs (diagnostic)
//   npx tsx bench/analysis-heldout.ts --set dev --tiers m4a,phone8k,text --verbose --no-write   # tuning on the dev part, every tier
//   npx tsx bench/analysis-heldout.ts --set heldout --recognise-only --no-write   # fill the recognition caches only
//   npx tsx bench/analysis-heldout.ts --set dev --tiers m4a --no-write --recogniser-stats /tmp/s.jsonl   # the recogniser's cost, per piece
//   npx tsx bench/analysis-heldout.ts --set dev --tiers text --ids a,b --no-write --speech-act-model none   # rules only (or a fold's model file)
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Analysis } from '../src/domain/analysis.js';
import type { Transcript } from '../src/domain/transcript.js';
import { groundAnalysis } from '../src/pipeline/analysis/grounding.js';
import { buildAnalysis, groundingViolations } from '../src/pipeline/analysis/embedded/index.js';
import { finalizeAnalysis } from '../src/pipeline/analysis/finalize.js';
import { validateAnalysis } from '../src/pipeline/analysis/validate.js';
import { formatSegmentText } from '../src/pipeline/normalize.js';
import type { Pipeline } from '../src/pipeline/index.js';
import { corpusDir, loadScorer, projectRoot, transcribeTruthAudio, type Truth } from '../test/support/corpus.js';
import { cachingTranscriber, speechPipelineVersion } from '../test/support/recognition-cache.js';
import { contextOf, scoreCall, table, totals, truthTranscript, type CallScore, type Totals } from './analysis.js';
import { analysisDialoguesDir, devIds, HELD_OUT_IDS, HELD_OUT_SETS } from './support/analysis-sets.js';
import { provenanceLine, startProvenance } from './support/provenance.js';
import { analysisHeadlines } from './support/headline.js';
import { applySpeechActFlags } from './support/speech-act-flags.js';

const outDir = path.join(projectRoot, '.cache/analysis-dialogues');
// `words` is a diagnostic, not a reported tier: the exact words in the form a recogniser writes them
// (lower case, no punctuation inside a segment, each segment formatted as the normaliser formats
// recognised words). Its gap to `text` is what the analyzer loses to the form alone; its gap to
// `m4a` is what it loses to recognition errors (and the recogniser's segmentation).
const TIERS = { m4a: 'call.m4a', phone8k: 'phone8k.wav', text: null, words: null } as const;
type Tier = keyof typeof TIERS;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// Renders the dialogues this run reads, named one by one: render.sh run over a whole folder deletes the
// renders of dialogues missing from it, and a branch without the newest dialogues then deleted their
// renders from the shared .cache (session 18, four warm-ups lost).
function render(ids: readonly string[]): void {
  if (!ids.length) return;
  execFileSync('bash', [path.join(corpusDir, 'render.sh'), ...ids], {
    env: { ...process.env, CORPUS_DIALOGUES: analysisDialoguesDir, CORPUS_OUT: outDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function truthOf(id: string): Truth {
  return JSON.parse(fs.readFileSync(path.join(outDir, id, 'truth.json'), 'utf8'));
}

async function registerFormats(): Promise<void> {
  // The speech stage validates with TypeBox, which rejects unregistered string formats.
  const { FormatRegistry } = await import('@sinclair/typebox');
  if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(v));
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v));
}

// What each recognition of this run cost (cache misses only): the dictation pass's share of the
// recogniser's time is printed per tier; --recogniser-stats FILE keeps every call's figures and
// per-piece first-pass words (for tuning which pieces the dictation pass decodes again).
type CallStats = import('../src/pipeline/transcription/pocketsphinx.js').RecognitionStats & { id: string };
const recognitionStats: CallStats[] = [];
let currentCall = '';

function statsLine(tier: Tier, stats: CallStats[]): string {
  const sum = (f: (s: CallStats) => number) => stats.reduce((a, s) => a + f(s), 0);
  return `${tier} recogniser (${stats.length} calls recognised, cache misses): ${sum((s) => s.pieces)} pieces, ${sum((s) => s.decodedAgain)} decoded again (${sum((s) => s.secondsDecodedAgain).toFixed(1)} s of audio), first pass ${(sum((s) => s.firstPassMs) / 1000).toFixed(1)} s, dictation pass ${(sum((s) => s.dictationMs) / 1000).toFixed(1)} s wall time`;
}

async function makePipeline(env: NodeJS.ProcessEnv): Promise<Pipeline> {
  await registerFormats();
  const { default: pino } = await import('pino');
  const { loadConfig } = await import('../src/config.js');
  const { createPipeline } = await import('../src/pipeline/index.js');
  const config = loadConfig({ ...env, DATA_DIR: path.join(os.tmpdir(), 'cas-bench-analysis-heldout') });
  const pipeline = await createPipeline(config, pino({ level: 'warn' }));
  // Recognition is the slow part on this shared machine: cached by audio bytes + provider + model.
  // The service's recognition time limit is meant for a machine it has to itself; the benchmark
  // gives the same recogniser (same model and decoder settings, so the same cache key) more time.
  let transcriber = pipeline.transcriber;
  if (transcriber.provider === 'pocketsphinx') {
    const { PocketsphinxTranscriber } = await import('../src/pipeline/transcription/pocketsphinx.js');
    transcriber = new PocketsphinxTranscriber({ timeoutBaseMs: 900_000, timeoutMsPerAudioSecond: 30_000, onStats: (s) => recognitionStats.push({ id: currentCall, ...s }) });
  }
  return { ...pipeline, transcriber: cachingTranscriber(transcriber) };
}

// Finished transcripts of the speech stage, cached by the audio's bytes and the version of the
// whole speech stage (everything under src/pipeline but the analysis folder, and the decoder
// settings): tuning the analyzer re-runs only the analysis, and any change to recognition,
// diarization or naming misses the cache.
const transcriptCacheDir = path.join(projectRoot, '.cache/analysis-transcripts', speechPipelineVersion());

async function speechTranscript(pipeline: Pipeline, id: string, tier: Tier, truth: Truth): Promise<Transcript> {
  const audio = path.join(outDir, id, TIERS[tier]!);
  const key = crypto.createHash('sha256').update(fs.readFileSync(audio)).update(pipeline.transcriber.provider).update(pipeline.transcriber.model).digest('hex').slice(0, 16);
  const file = path.join(transcriptCacheDir, `${id}.${tier}.${key}.json`);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Transcript;
  let speech: Awaited<ReturnType<typeof transcribeTruthAudio>> | null = null;
  for (let attempt = 1; !speech; attempt++) {
    try {
      speech = await transcribeTruthAudio(pipeline, audio, truth);
    } catch (err) {
      if (attempt >= 3) throw err;
      process.stdout.write(`${tier} ${id}: speech stage failed (${(err as Error).message}), retrying\n`);
    }
  }
  fs.mkdirSync(transcriptCacheDir, { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(speech.transcript));
  fs.renameSync(`${file}.tmp`, file);
  return speech.transcript;
}

interface TierResult {
  scores: CallScore[];
  rolesRight: number;
  namingRight: number;
  namingNotes: string[];
  warned: number;
  /** The calls behind the counts above, so that a subset (one held-out set) can be counted too. */
  rolesRightIds: Set<string>;
  namingRightIds: Set<string>;
  warnedIds: Set<string>;
  /** Each call's grounding violations by kind, so the table can say what kind of detail was unsupported. */
  violationKindsById: Map<string, string[]>;
}

/** The result restricted to some calls (one held-out set). */
function subsetResult(r: TierResult, ids: readonly string[]): TierResult {
  const keep = new Set(ids);
  const scores = r.scores.filter((s) => keep.has(s.id));
  const within = (set: Set<string>) => new Set([...set].filter((id) => keep.has(id)));
  const rolesRightIds = within(r.rolesRightIds);
  const namingRightIds = within(r.namingRightIds);
  const warnedIds = within(r.warnedIds);
  const violationKindsById = new Map([...r.violationKindsById].filter(([id]) => keep.has(id)));
  return { scores, rolesRight: rolesRightIds.size, namingRight: namingRightIds.size, namingNotes: [], warned: warnedIds.size, rolesRightIds, namingRightIds, warnedIds, violationKindsById };
}

async function runTier(pipeline: Pipeline, ids: string[], tier: Tier, verbose: boolean): Promise<TierResult> {
  const scorer = await loadScorer();
  const res: TierResult = { scores: [], rolesRight: 0, namingRight: 0, namingNotes: [], warned: 0, rolesRightIds: new Set(), namingRightIds: new Set(), warnedIds: new Set(), violationKindsById: new Map() };
  for (const id of ids) {
    const truth = truthOf(id);
    let transcript: Transcript;
    if (tier === 'text') {
      transcript = truthTranscript(truth, scorer);
    } else if (tier === 'words') {
      const exact = truthTranscript(truth, scorer);
      const segments = exact.segments.map((s) => ({ ...s, text: formatSegmentText(recognisedForm(s.text)) }));
      transcript = { ...exact, segments, cleanText: segments.map((s) => s.text).join(' ') };
    } else {
      currentCall = `${tier} ${id}`;
      transcript = await speechTranscript(pipeline, id, tier, truth);
      // --recognise-only fills the transcript cache and prints nothing about the call: a held-out
      // part can be recognised ahead of the one reporting run without anyone seeing its analysis
      if (process.argv.includes('--recognise-only')) continue;
      const s = scorer.scoreTranscript(truth, transcript);
      if (s.roleAccuracy === 1) (res.rolesRight++, res.rolesRightIds.add(id));
      if (s.naming === 1) (res.namingRight++, res.namingRightIds.add(id));
      if (s.roleAccuracy !== 1 || s.naming !== 1) {
        const got = transcript.speakers.map((sp) => `${sp.role}=${sp.displayName}`).join(', ');
        res.namingNotes.push(`${id}: roles ${s.roleAccuracy}, naming ${s.naming} (${got})`);
      }
    }
    const ctx = contextOf(truth);
    const t0 = performance.now();
    const a: Analysis = await pipeline.analyzer.analyze(transcript, ctx);
    const ms = performance.now() - t0;
    // The embedded analyzer's own safety net would hide its violations: count them before it.
    const violationList =
      pipeline.analyzer.provider === 'embedded'
        ? groundingViolations(finalizeAnalysis(buildAnalysis(transcript, ctx), transcript), transcript, ctx)
        : groundAnalysis(a, transcript, ctx.recordedAt).violations;
    const violations = violationList.length;
    if (violations) res.violationKindsById.set(id, violationList.map((v) => v.kind));
    if ((a.qualityWarnings ?? []).length) (res.warned++, res.warnedIds.add(id));
    const r = scoreCall(truth, a, violations, validateAnalysis(a).ok, ms);
    res.scores.push(r);
    process.stdout.write(`${tier} ${id}: items ${r.tp}/${r.required} extra ${r.fp}, e-mails ${r.emailFound}/${r.emailTotal}, phones ${r.phoneFound}/${r.phoneTotal}, violations ${r.violations}\n`);
    if (verbose) {
      for (const n of r.notes) process.stdout.write(`    ${n}\n`);
      for (const v of violationList) process.stdout.write(`    violation: ${v.kind} ${v.path} "${v.value}"\n`);
      for (const it of a.actionItems ?? []) process.stdout.write(`    item: ${it.ownerRole} ${it.intent} "${it.title}" due ${it.dueDate} ${JSON.stringify(it.intentMetadata ?? {})}\n`);
      for (const n of a.nextSteps ?? []) process.stdout.write(`    step: ${n.ownerSpeaker} "${n.text}"\n`);
      process.stdout.write(`    summary: ${a.executiveSummary}\n`);
      if (tier !== 'text') for (const s of transcript.segments) process.stdout.write(`    | ${s.role} ${s.alignmentConfidence}: ${s.text}\n`);
    }
  }
  return res;
}

/** A segment's words as a recogniser gives them: lower case, "$40" said as "40 dollars", no punctuation but apostrophes. */
function recognisedForm(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/([$£€])(\d[\d,.]*)/g, (_, sign: string, n: string) => `${n} ${sign === '£' ? 'pounds' : sign === '€' ? 'euros' : 'dollars'}`)
    .replace(/[^a-z0-9']+/g, ' ')
    .split(' ')
    .filter(Boolean);
}

const num = (s: string) => (s === 'n/a' ? NaN : Number(s));

function summaryRows(label: string, tier: Tier, t: Totals, r: TierResult): string {
  const n = r.scores.length;
  const roles = tier === 'text' || tier === 'words' ? 'n/a (truth)' : `${r.rolesRight}/${n}`;
  const naming = tier === 'text' || tier === 'words' ? 'n/a (truth)' : `${r.namingRight}/${n}`;
  return `| ${label} | ${t.recall} (${t.raw.tp}/${t.raw.required}) | ${t.precision} (${t.raw.fp} extra) | ${t.intent} | ${t.due} | ${t.meet} | ${t.email} | ${t.phone} | ${roles} | ${naming} | ${t.violations}${violationKinds(r)} | ${r.warned}/${n} | ${t.valid} |`;
}

/** " (datetime 1, email 2)": what kind of detail the violations were, or nothing when there were none. */
function violationKinds(r: TierResult): string {
  const counts = new Map<string, number>();
  for (const kinds of r.violationKindsById.values()) for (const k of kinds) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts.size ? ` (${[...counts].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(', ')})` : '';
}

/** The anchor of the block's heading in docs/bench/analysis.md. */
const HEADLINE_SECTION = 'analysis.md#new-calls-held-out-and-dev-parts-benchanalysis-heldoutts';

const HEADER = [
  '| tier | action-item recall % | precision % | intent accuracy % | due dates | meeting times | dictated e-mails | phone numbers | roles right | naming right | grounding violations | calls with qualityWarnings | valid |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
];

async function main() {
  // --speech-act-model FILE|none: the analyzer with another speech-act model (a cross-validation
  // fold's) or with the rules alone; --speech-act-thresholds add=0.9,intent=0.8,veto=1.01 likewise.
  // Benchmark switches only: the service always uses the committed model and thresholds.
  applySpeechActFlags(arg('--speech-act-model'), arg('--speech-act-thresholds'));
  const verbose = process.argv.includes('--verbose');
  const set = arg('--set') ?? 'both';
  // --recognise-only recognises and prints the recogniser's cost only: no tier is scored (the text
  // tier needs no recognition, so it does not run at all). It once ran the text tier and printed a
  // fresh held-out part's text-tier scores (session 15).
  const recogniseOnly = process.argv.includes('--recognise-only');
  const tiers = ((arg('--tiers')?.split(',') ?? ['m4a', 'phone8k', 'text']) as Tier[]).filter((t) => !recogniseOnly || TIERS[t] !== null);
  const only = arg('--ids')?.split(',');

  const env: NodeJS.ProcessEnv = { ...process.env };
  let mock: { stop(): Promise<void> } | null = null;
  if (process.argv.includes('--openai-mock')) {
    // Proves the LLM path runs through the same scorer; the mock's canned analysis is not a model.
    const { OpenAiMock } = await import('../test/support/openai-mock.js');
    const { goodAnalysis } = await import('../test/fixtures/chat-call.js');
    const m = await OpenAiMock.start();
    m.replies = [{ status: 200, json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1_795_000_000, model: 'mock', choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: JSON.stringify(goodAnalysis()), refusal: null } }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } } }];
    Object.assign(env, { ANALYSIS_PROVIDER: 'openai', ANALYSIS_OPENAI_BASE_URL: m.baseUrl, ANALYSIS_OPENAI_API_KEY: 'sk-mock', ANALYSIS_OPENAI_MODEL: 'mock' });
    mock = m as unknown as { stop(): Promise<void> };
  }
  let pipeline = await makePipeline(env);
  // The service's embedded analyzer runs in worker threads, each with its own copy of the speech-act
  // model: a --speech-act-* switch reaches this process only, so the analysis then runs here, in the
  // same EmbeddedAnalyzer the workers run.
  if ((arg('--speech-act-model') !== undefined || arg('--speech-act-thresholds') !== undefined) && pipeline.analyzer.provider === 'embedded') {
    const { EmbeddedAnalyzer } = await import('../src/pipeline/analysis/embedded/index.js');
    pipeline = { ...pipeline, analyzer: new EmbeddedAnalyzer() };
  }
  const analyzerName = `${pipeline.analyzer.provider} (${pipeline.analyzer.model})`;

  const parts: Array<{ name: string; sample: 'held-out' | 'in-sample'; ids: string[] }> = [];
  if (set !== 'dev') parts.push({ name: 'held-out', sample: 'held-out', ids: only ? HELD_OUT_IDS.filter((id) => only.includes(id)) : [...HELD_OUT_IDS] });
  if (set !== 'heldout') parts.push({ name: 'dev', sample: 'in-sample', ids: only ? devIds().filter((id) => only.includes(id)) : devIds() });
  render(parts.flatMap((p) => p.ids));

  const doc: string[] = [];
  for (const part of parts) {
    const prov = startProvenance(`bench/dialogues ${part.name} part (${part.ids.length} calls)`, part.sample);
    const rows = [...HEADER];
    const details: string[] = [];
    const gates: string[] = [];
    const markers: string[] = [];
    // --dev-tiers limits the dev part's tiers (its recognitions are the slow part; it is only tuned on)
    const partTiers = (part.name === 'dev' && arg('--dev-tiers') ? (arg('--dev-tiers')!.split(',') as Tier[]) : tiers).filter((t) => !recogniseOnly || TIERS[t] !== null);
    for (const tier of partTiers) {
      const statsFrom = recognitionStats.length;
      const r = await runTier(pipeline, part.ids, tier, verbose);
      const stats = recognitionStats.slice(statsFrom);
      if (stats.length) process.stdout.write(`${statsLine(tier, stats)}\n`);
      if (stats.length && arg('--recogniser-stats')) fs.appendFileSync(arg('--recogniser-stats')!, stats.map((s) => `${JSON.stringify(s)}\n`).join(''));
      if (recogniseOnly) continue;
      const t = totals(r.scores);
      const label = tier === 'text' ? 'dialogue text (no recognition)' : tier === 'words' ? 'dialogue words, recogniser form (diagnostic)' : tier === 'm4a' ? 'call.m4a (AAC 32 kbit/s)' : 'phone8k.wav (8 kHz telephone)';
      rows.push(summaryRows(label, tier, t, r));
      // Headline lines (bench/run.ts) for the held-out part; a --baseline block is history, not headline.
      if (part.sample === 'held-out' && tier !== 'words' && !process.argv.includes('--baseline')) markers.push(...analysisHeadlines(rows.at(-1)!, { data: `bench/dialogues: ${part.ids.length} held-out calls (flite voices), never tuned on`, sample: 'held-out', section: HEADLINE_SECTION, rolesColumns: true }));
      // Each held-out set on its own rows (aggregates only), below the pooled row.
      if (part.sample === 'held-out' && !only) {
        for (const heldOutSet of HELD_OUT_SETS) {
          const sub = subsetResult(r, heldOutSet.ids);
          rows.push(summaryRows(`${label}: ${heldOutSet.name}, ${sub.scores.length} calls`, tier, totals(sub.scores), sub));
        }
      }
      details.push(`#### ${part.name}, ${label}`, '', ...table(r.scores), '');
      if (r.namingNotes.length) details.push('Roles or naming wrong:', '', ...r.namingNotes.map((n) => `- ${n}`), '');
      if (tier === 'm4a') {
        const dict = r.scores.reduce((a, s) => [a[0] + s.emailFound + s.phoneFound, a[1] + s.emailTotal + s.phoneTotal], [0, 0]);
        gates.push(
          `- m4a action-item recall ≥ 80 %: ${t.recall} ${num(t.recall) >= 80 ? '✓' : '✗'}; precision ≥ 80 %: ${t.precision} ${num(t.precision) >= 80 ? '✓' : '✗'}`,
          `- m4a dictated e-mails and phone numbers ≥ 2/3: ${dict[0]}/${dict[1]} ${dict[1] && dict[0] / dict[1] >= 2 / 3 ? '✓' : '✗'}`,
          `- m4a roles and naming right on every call: ${r.rolesRight}/${r.scores.length} roles, ${r.namingRight}/${r.scores.length} names ${r.rolesRight === r.scores.length && r.namingRight === r.scores.length ? '✓' : '✗'}`,
        );
      }
      if (tier === 'phone8k') gates.push(`- 8 kHz action-item recall ≥ 60 %: ${t.recall} ${num(t.recall) >= 60 ? '✓' : '✗'}`);
      gates.push(`- ${tier} grounding violations = 0: ${t.violations} ${t.violations === 0 ? '✓' : '✗'}`);
    }
    const p = prov.finish();
    const title = part.sample === 'held-out' ? `### Held-out part (${part.ids.length} calls, never tuned on) — analyzer ${analyzerName}` : `### Dev part (${part.ids.length} calls, tuned on: in-sample) — analyzer ${analyzerName}`;
    doc.push(title, '', ...rows, '', provenanceLine(p, ['npx tsx bench/analysis-heldout.ts', ...process.argv.slice(2)].join(' ')), ...markers, '', ...(part.sample === 'held-out' ? ['Acceptance (issue 28):', '', ...gates, ''] : []), '<details><summary>Per call</summary>', '', ...details, '</details>', '');
  }
  await mock?.stop();
  if (recogniseOnly) return;
  const text = doc.join('\n');
  console.log(`\n${text}`);
  if (!process.argv.includes('--no-write') && !process.argv.includes('--openai-mock')) {
    const file = path.join(projectRoot, 'docs/bench/analysis.md');
    // bench/run.ts writes the file's frame when it is missing; run alone, the block is appended.
    const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    // --baseline records the figures before an analyzer change in a block of its own, kept below.
    const name = process.argv.includes('--baseline') ? 'heldout-baseline' : 'heldout';
    const heading = name === 'heldout' ? '## New calls: held-out and dev parts (bench/analysis-heldout.ts)' : '## Baseline on the new calls, before the issue 28 analyzer changes';
    const block = [`<!-- ${name} -->`, '', heading, '', text, `<!-- /${name} -->`].join('\n');
    const re = new RegExp(`<!-- ${name} -->[\\s\\S]*<!-- /${name} -->`);
    const before = existing.includes('<!-- heldout-baseline -->') ? '<!-- heldout-baseline -->' : '\n## ';
    const updated = re.test(existing) ? existing.replace(re, block) : existing.includes(before) ? existing.replace(before, `${before.startsWith('\n') ? '\n' : ''}${block}\n\n${before.trimStart()}`) : `${existing}${existing ? '\n' : ''}${block}\n`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, updated);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
