// The headline table (docs/bench/README.md and the README's pointer to it) is assembled by
// bench/run.ts from markers the benchmark scripts put in their own reports, so every headline
// number is one a script wrote, next to its provenance. A report adds a row with
// `headlineMarker({...})` on a line of its own; run.ts reads every docs/bench/*.md for them.
import type { SampleKind } from './provenance.js';

export interface HeadlineRow {
  /** What is measured, e.g. "word error rate, mono16k.wav". */
  figure: string;
  /** The measured value as the report prints it, e.g. "15.5 %". */
  value: string;
  /** Data set in a few words, e.g. "synthetic corpus, 12 calls (flite voices)". */
  data: string;
  sample: SampleKind;
  /** Real people's voices or synthetic ones: the headline shows them side by side. */
  voices: 'real' | 'synthetic' | 'none';
  /** The report section the figure comes from, e.g. "speech.md#mono16kwav". */
  section: string;
}

const PREFIX = '<!-- headline: ';

export function headlineMarker(row: HeadlineRow): string {
  return `${PREFIX}${JSON.stringify(row).replaceAll('--', '- -')} -->`;
}

/** Every headline row in a report's text. */
export function readHeadlineMarkers(text: string): HeadlineRow[] {
  const rows: HeadlineRow[] = [];
  for (const line of text.split('\n')) {
    const at = line.indexOf(PREFIX);
    if (at < 0) continue;
    const json = line.slice(at + PREFIX.length, line.lastIndexOf(' -->'));
    try {
      rows.push(JSON.parse(json) as HeadlineRow);
    } catch {
      // a malformed marker is skipped; run.ts reports the count it found per file
    }
  }
  return rows;
}

/** The cells of one Markdown table row. */
function cells(row: string): string[] {
  return row.split('|').slice(1, -1).map((c) => c.trim());
}

/** "52.6 (10/19)" -> "52.6 % (10/19)"; "n/a" stays. */
function withPercent(cell: string): string {
  return cell.replace(/^(\d+(?:\.\d+)?)(?=\s|$)/, '$1 %');
}

/**
 * Headline lines of the analyzer from a summary row of bench/analysis-heldout.ts (tier | recall |
 * precision | intent | due | meeting | e-mails | phones | roles | naming | ...) or of bench/analysis.ts
 * (transcript | recall | precision | ...): built from the printed row, so the headline says exactly
 * what the table says (and can be rebuilt from a report without re-running it).
 */
export function analysisHeadlines(row: string, opts: { data: string; sample: SampleKind; section: string; rolesColumns: boolean }): string[] {
  const c = cells(row);
  const label = c[0];
  const text = /dialogue text|ground truth/.test(label);
  const tier = text ? 'exact dialogue text (no recognition)' : (label.match(/[\w-]+\.(?:wav|m4a|mp3|ogg)/)?.[0] ?? label);
  const base = { data: opts.data, sample: opts.sample, voices: text ? ('none' as const) : ('synthetic' as const), section: opts.section };
  const out = [headlineMarker({ ...base, figure: `analysis: action-item recall / precision, ${tier}`, value: `${withPercent(c[1])} / ${withPercent(c[2])}` })];
  if (opts.rolesColumns && !text) out.push(headlineMarker({ ...base, figure: `analysis calls with roles / naming right (speech stage), ${tier}`, value: `${c[8]} / ${c[9]}` }));
  return out;
}

/** bench/voice-real.ts's encodings under the variant names of bench/voice.ts, so they share a line. */
const VOICE_ENCODING: Record<string, string> = { '16 kHz': 'mono16k', m4a: 'm4a', '8 kHz phone': 'phone8k' };

/**
 * The headline line of a real-voice table row of bench/voice-real.ts (encoding | owner present:
 * named | wrong party named | owner absent: a party named), as the figure bench/voice.ts publishes
 * for synthetic voices: decisions right over every trial, false matches when the owner is absent.
 */
export function voiceHeadline(row: string, opts: { data: string; sample: SampleKind; section: string; embedder: string }): string {
  const c = cells(row);
  const [named, present] = (c[1].match(/^(\d+)\/(\d+)/) ?? []).slice(1).map(Number);
  const [falseNamed, absent] = (c[3].match(/^(\d+)\/(\d+)/) ?? []).slice(1).map(Number);
  const right = named + (absent - falseNamed);
  const variant = VOICE_ENCODING[c[0]] ?? c[0];
  return headlineMarker({
    figure: `voice match decisions right, ${variant} (false matches when the owner is absent)`,
    // Decisions right weighs absent-owner trials three to one here (one in one in voice.md): the
    // owner-named share is given too.
    value: `${((100 * right) / (present + absent)).toFixed(1)} % (${falseNamed}/${absent}; owner named ${named}/${present}), ${opts.embedder}`,
    data: opts.data,
    sample: opts.sample,
    voices: 'real',
    section: opts.section,
  });
}

/**
 * The headline table from the rows of every report, in report order. One line per figure: the
 * real-voice value beside the synthetic one, each value with its sample kind when the line mixes
 * them (a held-out real-voice figure beside an in-sample synthetic one); lines with a held-out value
 * first, then in the order of the reports.
 */
export function headlineTable(rows: HeadlineRow[]): string[] {
  interface Line { figure: string; samples: HeadlineRow['sample'][]; real: HeadlineRow[]; synthetic: HeadlineRow[]; data: string[]; sections: string[] }
  const merged = new Map<string, Line>();
  for (const r of rows) {
    const m = merged.get(r.figure) ?? { figure: r.figure, samples: [], real: [], synthetic: [], data: [], sections: [] };
    (r.voices === 'real' ? m.real : m.synthetic).push(r);
    if (!m.samples.includes(r.sample)) m.samples.push(r.sample);
    if (!m.data.includes(r.data)) m.data.push(r.data);
    if (!m.sections.includes(r.section)) m.sections.push(r.section);
    merged.set(r.figure, m);
  }
  const rank = (sample: HeadlineRow['sample']) => (sample === 'held-out' ? 0 : sample === 'in-sample' ? 1 : 2);
  const lines = [...merged.values()].map((m) => ({ ...m, samples: [...m.samples].sort((a, b) => rank(a) - rank(b)) }));
  lines.sort((a, b) => rank(a.samples[0]) - rank(b.samples[0]));
  const cell = (m: Line, values: HeadlineRow[]) =>
    values.length === 0
      ? '-'
      : [...values]
          .sort((a, b) => rank(a.sample) - rank(b.sample))
          .map((v) => (m.samples.length > 1 ? `${v.sample === 'held-out' ? '**held-out**' : v.sample}: ${v.value}` : v.value))
          .join('; ');
  const table = [
    '| | figure | real voices | synthetic voices (or text) | data | report |',
    '|---|---|---|---|---|---|',
    ...lines.map((m) => `| ${m.samples.map((x) => (x === 'held-out' ? '**held-out**' : x)).join(' / ')} | ${m.figure} | ${cell(m, m.real)} | ${cell(m, m.synthetic)} | ${m.data.join('; ')} | ${m.sections.map((x) => `[${x.split('#')[0]}](${x})`).join(', ')} |`),
  ];
  return table;
}
