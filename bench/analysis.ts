// Analysis benchmark: runs the embedded analyzer on every corpus call and compares the result with
// the call's `expect` block: action items (recall, precision, intent, due dates, meeting times),
// e-mail addresses and phone numbers recovered, sentiment and call type agreement, grounding
// violations and schema validity.
//
//   npm run bench:analysis                  # ground-truth transcripts
//   npm run bench:analysis -- --asr         # also the speech pipeline's transcript of mono16k.wav
//                                           # (cached in .cache/bench-analysis-asr; --fresh re-runs it)
//   npm run bench:analysis -- --ids car-repair --verbose
// Writes docs/bench/analysis.md (and prints the tables).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Analysis, AnalysisActionItem, AnalysisContext } from '../src/domain/analysis.js';
import { cleanTextOf, type Transcript } from '../src/domain/transcript.js';
import { buildAnalysis, EmbeddedAnalyzer, groundingViolations } from '../src/pipeline/analysis/embedded/index.js';
import { contentStems } from '../src/pipeline/analysis/embedded/text.js';
import { finalizeAnalysis } from '../src/pipeline/analysis/finalize.js';
import { validateAnalysis } from '../src/pipeline/analysis/validate.js';
import { corpusIds, loadScorer, loadTruth, projectRoot, type Truth, transcribeCorpusCall } from '../test/support/corpus.js';
import { analysisHeadlines } from './support/headline.js';
import { applySpeechActFlags } from './support/speech-act-flags.js';
import { provenanceLine, startProvenance } from './support/provenance.js';

type Scorer = Awaited<ReturnType<typeof loadScorer>>;

/** The ground-truth turns as a complete transcript resource (speaker ids spk_1 / spk_2). */
export function truthTranscript(truth: Truth, scorer: Scorer): Transcript {
  const perfect = scorer.perfectTranscript as (truth: unknown, opts: { speakerIds: Record<'A' | 'B', string> }) => any;
  const t = perfect(truth, { speakerIds: { A: 'spk_1', B: 'spk_2' } });
  const segments = t.segments as Transcript['segments'];
  return {
    schemaVersion: 2,
    callId: '00000000-0000-4000-8000-000000000000',
    language: 'en',
    durationSeconds: t.durationSeconds,
    cleanText: cleanTextOf(segments),
    speakers: (t.speakers as Array<Record<string, unknown>>).map((s) => ({ ...s, voiceMatchScore: null, voiceProfileMatched: null })) as Transcript['speakers'],
    segments,
    speakerResolution: {
      strategyVersion: 2,
      usedUserDisplayName: true,
      usedContactName: truth.upload.contactName !== null,
      usedDirection: true,
      usedPhoneFallback: truth.upload.contactName === null,
      voiceEmbeddingEnabled: false,
      voiceProfileUsed: false,
      voiceMatchStatus: 'DISABLED',
      totalSpeakerCount: 2,
      resolvedSpeakerCount: 2,
      warnings: truth.expect?.naming?.expectedWarnings ?? [],
    },
    pipeline: {
      transcriptionProvider: 'ground-truth',
      transcriptionModel: 'corpus',
      diarizationProvider: 'ground-truth',
      diarizationModel: 'corpus',
      alignmentVersion: '1',
      normalizationVersion: 3,
      status: 'COMPLETED',
    },
    createdAt: truth.upload.recordedAt,
  };
}

export function contextOf(truth: Truth): AnalysisContext {
  return {
    userDisplayName: truth.user.displayName,
    contactName: truth.upload.contactName,
    phoneNumber: truth.upload.phoneNumber,
    direction: truth.upload.direction,
    recordedAt: truth.upload.recordedAt,
    title: truth.title,
  };
}

// ------------------------------------------------------------------------------------- scoring

interface Expected {
  role: 'USER' | 'CONTACT';
  text: string;
  intent: string;
  /** Other intents a reader would accept for this item (the new dialogues in bench/dialogues/ only). */
  intentAlternatives?: string[];
  due?: string;
  proposedAt?: string;
  toEmail?: string;
  phoneNumber?: string;
  attendees?: Array<{ email?: string }>;
  optional?: boolean;
}

export interface CallScore {
  id: string;
  required: number;
  tp: number;
  fp: number;
  neutral: number;
  produced: number;
  intentMatched: number;
  intentCorrect: number;
  dueTotal: number;
  dueCorrect: number;
  meetTotal: number;
  meetCorrect: number;
  emailTotal: number;
  emailFound: number;
  phoneTotal: number;
  phoneFound: number;
  sentiment: string;
  sentimentExpected: string;
  sentimentOk: boolean;
  sentimentLenient: boolean;
  callType: string;
  callTypeExpected: string;
  callTypeOk: boolean;
  callTypeLenient: boolean;
  violations: number;
  valid: boolean;
  ms: number;
  notes: string[];
}

const intentAccepted = (e: Expected, intent: string | undefined) => intent === e.intent || (intent !== undefined && (e.intentAlternatives ?? []).includes(intent));

/** Share of the expected item's content words found in the produced item. */
function contentMatch(exp: string, item: { title: string; description?: string | null }): number {
  const e = new Set(contentStems(exp));
  const p = new Set(contentStems(`${item.title} ${item.description ?? ''}`));
  if (!e.size) return 0;
  let common = 0;
  for (const s of e) if (p.has(s)) common++;
  return common >= 2 || common / e.size >= 0.25 ? common / e.size : 0;
}

export function scoreCall(truth: Truth, a: Analysis, violations: number, valid: boolean, ms: number): CallScore {
  const ex = truth.expect;
  const roleOf = (owner: 'A' | 'B') => truth.speakers[owner].role;
  const expected: Expected[] = (ex.actionItems ?? []).map((x: any) => ({ ...x, role: roleOf(x.owner) }));
  const steps: Expected[] = (ex.nextSteps ?? []).map((x: any) => ({ ...x, role: roleOf(x.owner), intent: 'task' }));
  const items: AnalysisActionItem[] = a.actionItems ?? [];
  const notes: string[] = [];

  // recall: each required item against the best unused produced item of the same owner role and intent
  const used = new Set<number>();
  let tp = 0;
  const required = expected.filter((e) => !e.optional);
  const pairs = new Map<Expected, number>();
  for (const e of expected) {
    let best = -1;
    let bestScore = 0;
    items.forEach((it, k) => {
      if (used.has(k) || it.ownerRole !== e.role || !intentAccepted(e, it.intent)) return;
      const s = contentMatch(e.text, it);
      if (s > bestScore) {
        best = k;
        bestScore = s;
      }
    });
    if (best >= 0) {
      used.add(best);
      pairs.set(e, best);
      if (!e.optional) tp++;
    } else if (!e.optional) notes.push(`missed: ${e.role} ${e.intent} "${e.text}"`);
  }
  // precision: unmatched produced items are false positives unless they match an optional item or
  // a next step (by owner role and content, any intent)
  let fp = 0;
  let neutral = 0;
  items.forEach((it, k) => {
    if (used.has(k)) {
      const e = [...pairs.entries()].find(([, v]) => v === k)?.[0];
      if (e?.optional) neutral++;
      return;
    }
    const soft = [...expected, ...steps].some((e) => e.role === it.ownerRole && contentMatch(e.text, it) > 0);
    if (soft) neutral++;
    else {
      fp++;
      notes.push(`extra: ${it.ownerRole} ${it.intent} "${it.title}"`);
    }
  });

  // intent accuracy over expected items found by owner role and content alone
  let intentMatched = 0;
  let intentCorrect = 0;
  for (const e of expected) {
    const cands = items.filter((it) => it.ownerRole === e.role && contentMatch(e.text, it) > 0);
    if (!cands.length) continue;
    intentMatched++;
    if (cands.some((it) => intentAccepted(e, it.intent))) intentCorrect++;
    else notes.push(`intent: expected ${e.intent}, got ${cands.map((c) => c.intent).join('/')} for "${e.text}"`);
  }

  let dueTotal = 0;
  let dueCorrect = 0;
  let meetTotal = 0;
  let meetCorrect = 0;
  for (const e of required) {
    const k = pairs.get(e);
    if (e.due) {
      dueTotal++;
      if (k !== undefined && items[k].dueDate === e.due) dueCorrect++;
      else notes.push(`due: expected ${e.due}, got ${k !== undefined ? items[k].dueDate : 'no item'}`);
    }
    if (e.proposedAt) {
      meetTotal++;
      const got = k !== undefined ? items[k].intentMetadata?.proposedAt ?? null : null;
      if (got && got.startsWith(e.proposedAt)) meetCorrect++;
      else notes.push(`proposedAt: expected ${e.proposedAt}, got ${got}`);
    }
  }

  // e-mails and phone numbers said in the call, recovered into launcher metadata
  const emails = new Set<string>();
  const phones = new Set<string>();
  for (const it of items) {
    const md = it.intentMetadata ?? {};
    if (md.toEmail) emails.add(md.toEmail.toLowerCase());
    for (const att of md.attendees ?? []) if (att.email) emails.add(att.email.toLowerCase());
    if (md.phoneNumber) phones.add(md.phoneNumber);
  }
  for (const n of (a.numbersAndAmounts ?? []) as Array<Record<string, unknown>>) if (n.kind === 'phone') phones.add(String(n.value));
  const expEmails = [...new Set<string>((ex.emails ?? []).map((e: any) => e.canonical.toLowerCase()))];
  const expPhones = [...new Set<string>((ex.phoneNumbers ?? []).map((p: any) => p.normalized))];
  const emailFound = expEmails.filter((e) => emails.has(e)).length;
  const phoneFound = expPhones.filter((p) => phones.has(p)).length;
  for (const e of expEmails) if (!emails.has(e)) notes.push(`email not recovered: ${e}`);
  for (const p of expPhones) if (!phones.has(p)) notes.push(`phone not recovered: ${p}`);

  const sentiment = a.sentiment?.overall ?? 'none';
  const sentimentOk = sentiment === ex.sentiment?.overall;
  const sentimentLenient = sentimentOk || (ex.sentimentAlternatives ?? []).includes(sentiment);
  const callType = a.callType ?? 'none';
  const callTypeOk = callType === ex.callType;
  const callTypeLenient = callTypeOk || (ex.callTypeAlternatives ?? []).includes(callType);

  return {
    id: truth.id,
    required: required.length,
    tp,
    fp,
    neutral,
    produced: items.length,
    intentMatched,
    intentCorrect,
    dueTotal,
    dueCorrect,
    meetTotal,
    meetCorrect,
    emailTotal: expEmails.length,
    emailFound,
    phoneTotal: expPhones.length,
    phoneFound,
    sentiment,
    sentimentExpected: ex.sentiment?.overall,
    sentimentOk,
    sentimentLenient,
    callType,
    callTypeExpected: ex.callType,
    callTypeOk,
    callTypeLenient,
    violations,
    valid,
    ms,
    notes,
  };
}

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}`);

export interface Totals {
  recall: string;
  precision: string;
  intent: string;
  due: string;
  meet: string;
  email: string;
  phone: string;
  sentiment: string;
  sentimentLenient: string;
  callType: string;
  callTypeLenient: string;
  violations: number;
  valid: string;
  msPerCall: string;
  raw: { tp: number; required: number; fp: number };
}

export function totals(rs: CallScore[]): Totals {
  const sum = (k: keyof CallScore) => rs.reduce((a, r) => a + (r[k] as number), 0);
  const count = (k: keyof CallScore) => rs.filter((r) => r[k]).length;
  return {
    recall: pct(sum('tp'), sum('required')),
    precision: pct(sum('tp'), sum('tp') + sum('fp')),
    intent: pct(sum('intentCorrect'), sum('intentMatched')),
    due: `${sum('dueCorrect')}/${sum('dueTotal')}`,
    meet: `${sum('meetCorrect')}/${sum('meetTotal')}`,
    email: `${sum('emailFound')}/${sum('emailTotal')}`,
    phone: `${sum('phoneFound')}/${sum('phoneTotal')}`,
    sentiment: pct(count('sentimentOk'), rs.length),
    sentimentLenient: pct(count('sentimentLenient'), rs.length),
    callType: pct(count('callTypeOk'), rs.length),
    callTypeLenient: pct(count('callTypeLenient'), rs.length),
    violations: sum('violations'),
    valid: `${count('valid')}/${rs.length}`,
    msPerCall: (sum('ms') / Math.max(1, rs.length)).toFixed(0),
    raw: { tp: sum('tp'), required: sum('required'), fp: sum('fp') },
  };
}

export function table(rs: CallScore[]): string[] {
  const rows = [
    '| call | action items (found/required, extra) | intent | due | meeting time | e-mail | phone | sentiment (got / expected) | call type (got / expected) | grounding violations |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rs) {
    rows.push(
      `| ${r.id} | ${r.tp}/${r.required}, ${r.fp} | ${r.intentCorrect}/${r.intentMatched} | ${r.dueCorrect}/${r.dueTotal} | ${r.meetCorrect}/${r.meetTotal} | ${r.emailFound}/${r.emailTotal} | ${r.phoneFound}/${r.phoneTotal} | ${r.sentiment} / ${r.sentimentExpected}${r.sentimentOk ? '' : r.sentimentLenient ? ' (alt.)' : ' ✗'} | ${r.callType} / ${r.callTypeExpected}${r.callTypeOk ? '' : r.callTypeLenient ? ' (alt.)' : ' ✗'} | ${r.violations} |`,
    );
  }
  return rows;
}

async function analyzeOne(truth: Truth, transcript: Transcript): Promise<CallScore> {
  const ctx = contextOf(truth);
  const t0 = performance.now();
  // Violations are counted before the analyzer's own grounding safety net can hide them.
  const raw = finalizeAnalysis(buildAnalysis(transcript, ctx), transcript);
  const violations = groundingViolations(raw, transcript, ctx).length;
  const a = await new EmbeddedAnalyzer().analyze(transcript, ctx);
  const ms = performance.now() - t0;
  return scoreCall(truth, a, violations, validateAnalysis(a).ok, ms / 2);
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function asrTranscripts(ids: string[]): Promise<Map<string, Transcript> | string> {
  const module = path.join(projectRoot, 'src/pipeline/transcription/pocketsphinx.ts');
  if (!fs.existsSync(module)) return 'the recogniser module is not present';
  try {
    // The speech stage validates its transcript with TypeBox, which rejects unregistered string
    // formats; the server registers them at start-up, a bare script has to.
    const { FormatRegistry } = await import('@sinclair/typebox');
    if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(v));
    if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v));
    const { default: pino } = await import('pino');
    const { loadConfig } = await import('../src/config.js');
    const { createPipeline } = await import('../src/pipeline/index.js');
    const config = loadConfig({ ...process.env, DATA_DIR: path.join(os.tmpdir(), 'cas-bench-analysis') });
    const created = await createPipeline(config, pino({ level: 'warn' }));
    // recognitions are shared with the tests' cache (audio bytes + recogniser provider and model)
    const { cachingTranscriber, speechPipelineVersion } = await import('../test/support/recognition-cache.js');
    const pipeline = { ...created, transcriber: cachingTranscriber(created.transcriber) };
    const res = new Map<string, Transcript>();
    // Recognition is the slow part; transcripts are kept between runs unless --fresh is given, keyed
    // by the speech stage's version (its sources and decoder settings), so a pipeline change misses.
    const cacheDir = path.join(projectRoot, '.cache/bench-analysis-asr');
    fs.mkdirSync(cacheDir, { recursive: true });
    const version = speechPipelineVersion();
    for (const id of ids) {
      const cached = path.join(cacheDir, `${id}.${version}.json`);
      if (!process.argv.includes('--fresh') && fs.existsSync(cached)) {
        res.set(id, JSON.parse(fs.readFileSync(cached, 'utf8')) as Transcript);
        continue;
      }
      const speech = await transcribeCorpusCall(pipeline, id, 'mono16k.wav');
      res.set(id, speech.transcript);
      fs.writeFileSync(cached, JSON.stringify(speech.transcript));
      process.stdout.write(`asr ${id}: ${speech.transcript.segments.length} segments\n`);
    }
    return res;
  } catch (err) {
    return `the speech pipeline failed: ${(err as Error).message}`;
  }
}

function summaryRow(label: string, t: Totals): string {
  return `| ${label} | ${t.recall} (${t.raw.tp}/${t.raw.required}) | ${t.precision} (${t.raw.fp} extra) | ${t.intent} | ${t.due} | ${t.meet} | ${t.email} | ${t.phone} | ${t.sentiment} (${t.sentimentLenient} with alternatives) | ${t.callType} (${t.callTypeLenient} with alternatives) | ${t.violations} | ${t.valid} | ${t.msPerCall} |`;
}

async function main() {
  // --speech-act-model FILE|none: the analyzer with another speech-act model (a cross-validation
  // fold's) or with the rules alone; --speech-act-thresholds add=0.9,intent=0.8,veto=1.01 likewise.
  // Benchmark switches only: the service always uses the committed model and thresholds.
  applySpeechActFlags(arg('--speech-act-model'), arg('--speech-act-thresholds'));
  const ids = arg('--ids')?.split(',') ?? corpusIds();
  const verbose = process.argv.includes('--verbose');
  const scorer = await loadScorer();
  const prov = startProvenance(`corpus calls (${ids.length}, flite voices)`, 'in-sample');
  const truthScores: CallScore[] = [];
  for (const id of ids) {
    const truth = loadTruth(id);
    const r = await analyzeOne(truth, truthTranscript(truth, scorer));
    truthScores.push(r);
    process.stdout.write(`truth ${id}: items ${r.tp}/${r.required} extra ${r.fp}, sentiment ${r.sentiment}, type ${r.callType}, violations ${r.violations}\n`);
    if (verbose) for (const n of r.notes) process.stdout.write(`    ${n}\n`);
  }
  const summary = [
    '| transcript | action-item recall % | precision % | intent accuracy % | due dates | meeting times | e-mails | phone numbers | sentiment agreement % | call type agreement % | grounding violations | valid | ms per call |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    summaryRow('ground truth', totals(truthScores)),
  ];
  const sections = ['### Ground-truth transcripts', '', ...table(truthScores), ''];

  if (process.argv.includes('--asr')) {
    const asr = await asrTranscripts(ids);
    if (typeof asr === 'string') {
      sections.push('### Recogniser transcripts', '', `Not run: ${asr}.`, '');
    } else {
      const asrScores: CallScore[] = [];
      for (const id of ids) {
        const t = asr.get(id);
        if (!t) continue;
        const r = await analyzeOne(loadTruth(id), t);
        asrScores.push(r);
        process.stdout.write(`asr ${id}: items ${r.tp}/${r.required} extra ${r.fp}, sentiment ${r.sentiment}, type ${r.callType}, violations ${r.violations}\n`);
        if (verbose) for (const n of r.notes) process.stdout.write(`    ${n}\n`);
      }
      summary.push(summaryRow('pocketsphinx, mono16k.wav', totals(asrScores)));
      sections.push('### Recogniser transcripts (speech pipeline on mono16k.wav)', '', ...table(asrScores), '');
    }
  }

  const tTruth = totals(truthScores);
  const targets = [
    `- action-item recall ≥ 80 %: ${tTruth.recall} ${Number(tTruth.recall) >= 80 ? '✓' : '✗'}`,
    `- action-item precision ≥ 70 %: ${tTruth.precision} ${Number(tTruth.precision) >= 70 ? '✓' : '✗'}`,
    `- intent accuracy ≥ 80 %: ${tTruth.intent} ${Number(tTruth.intent) >= 80 ? '✓' : '✗'}`,
    `- grounding violations = 0: ${tTruth.violations} ${tTruth.violations === 0 ? '✓' : '✗'}`,
  ];
  console.log(['', ...summary, '', ...targets, ''].join('\n'));
  console.log(sections.join('\n'));
  const doc = path.join(projectRoot, 'docs/bench/analysis.md');
  const existing = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '';
  const marker = '<!-- results -->';
  const command = `node --import tsx bench/analysis.ts${process.argv.includes('--asr') ? ' --asr' : ''}${arg('--ids') ? ` --ids ${arg('--ids')}` : ''}`;
  // Headline lines (bench/run.ts): in-sample, the analyzer's rules were written on these calls.
  const markers = summary.slice(2).flatMap((row) => analysisHeadlines(row, { data: `corpus (${ids.length} calls), analyzer tuned on them`, sample: 'in-sample', section: 'analysis.md#corpus-calls-in-sample-benchanalysists', rolesColumns: false }));
  const results = [marker, '', `Run: \`npm run bench:analysis${process.argv.includes('--asr') ? ' -- --asr' : ''}\` (${ids.length} calls).`, '', ...summary, '', provenanceLine(prov.finish(), command), ...markers, '', 'Targets on ground-truth transcripts:', '', ...targets, '', ...sections, '<!-- /results -->'].join('\n');
  const updated = existing.includes(marker)
    ? existing.replace(/<!-- results -->[\s\S]*<!-- \/results -->/, results)
    : `${existing}${existing ? '\n' : ''}${results}\n`;
  fs.mkdirSync(path.dirname(doc), { recursive: true });
  fs.writeFileSync(doc, updated);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
