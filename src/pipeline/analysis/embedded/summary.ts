// Extractive summarisation. Sentences are ranked with TextRank (PageRank over a graph whose edges
// are content-word overlap, Mihalcea & Tarau 2004), biased towards sentences that carry facts
// (dates, amounts, addresses) or commitments. Sections come from lexical-cohesion dips between
// turns (TextTiling, Hearst 1997); key phrases are noun chunks weighted by the rank of the
// sentences they occur in. The chosen sentences are reported in the third person (report.ts).
import nlp from 'compromise';
import { stemmer } from 'stemmer';
import type { AnalysisActionItem, Section } from '../../../domain/analysis.js';
import { formatClock } from '../../../domain/transcript.js';
import { nounChunks } from './actions.js';
import { report } from './report.js';
import { addresseeOf, capitalize, contentStems, isStopword, type CallText, type Unit } from './text.js';

export interface Ranking {
  /** TextRank score per unit index (0 for units that are not substantive). */
  score: number[];
  /** Units worth summarising: enough content words, not a pleasantry. */
  substantive: Unit[];
  /** Reported (third-person) sentence per unit index, null when there is nothing to report. */
  reported: Array<string | null>;
}

const PLEASANTRY = /^(hi|hello|hey|bye|goodbye|thanks|thank you|you too|my pleasure|see you|talk soon|have a (nice|good|great|lovely)|good (morning|afternoon|evening)|sounds good|got it|perfect|great|okay|sure)\b/i;

/** Self-introductions ("Hi, this is Janet", "I'm calling from Bayview Logistics") name, not inform. */
const INTRODUCTION = [
  /^(?:(?:[Hh]i|[Hh]ello|[Hh]ey|[Gg]ood (?:morning|afternoon|evening))[,.!]?\s+)*(?:[Tt]his is|[Ii]t's|[Ii]t is|I'm|I am|[Ww]e're|[Ww]e are)\s+(?:calling\s+)?(?:from\s+)?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3}(?:\s+(?:from|at|with)\s+[A-Z][\w' .-]*)?[.!]?$/,
  /\bthis is [A-Z][\w'-]*[.!]?$/,
  /^[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+speaking[.!]?$/,
];

const COURTESY_STEMS = new Set(['call', 'lovel', 'love', 'nice', 'day', 'even', 'pleasur', 'soon', 'talk', 'bye', 'morn', 'afternoon', 'week', 'weekend', 'miss', 'mr', 'mrs', 'ms', 'dr', 'help', 'speak', 'much']);

function isSubstantive(u: Unit, names: Set<string>): boolean {
  if (u.words < 4 || u.stems.length < 2) return false;
  if (u.words <= 8 && INTRODUCTION.some((re) => re.test(u.text.trim()))) return false;
  // a courtesy ("Thank you so much for calling, Miss Alvarez") has nothing left without its
  // courtesy words and names
  if (PLEASANTRY.test(u.text.trim()) && u.stems.filter((x) => !COURTESY_STEMS.has(x) && !names.has(x)).length < 2) return false;
  return true;
}

/** TextRank over the units with a bias vector; deterministic (fixed iteration order and count). */
export function rankUnits(ct: CallText, boosted: Set<number>): Ranking {
  const units = ct.units;
  const n = units.length;
  const names = new Set(ct.speakers.flatMap((sp) => contentStems(`${sp.displayName} ${sp.label}`)));
  const substantive = units.filter((u) => isSubstantive(u, names));
  const idx = substantive.map((u) => u.idx);
  const m = idx.length;
  const score = new Array<number>(n).fill(0);
  const reported = units.map((u) => report(u, addresseeOf(ct, u), ct.speakers));
  if (m === 0) return { score, substantive, reported };

  const sets = substantive.map((u) => new Set(u.stems));
  const w: number[][] = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      let common = 0;
      for (const s of sets[i]) if (sets[j].has(s)) common++;
      if (!common) continue;
      const sim = common / (Math.log(sets[i].size + 1) + Math.log(sets[j].size + 1));
      w[i][j] = sim;
      w[j][i] = sim;
    }
  }
  const bias = substantive.map((u) => 1 + (u.entities.length || u.dates.length ? 0.5 : 0) + (boosted.has(u.idx) ? 0.5 : 0) + (u.isQuestion ? -0.3 : 0));
  const biasSum = bias.reduce((a, b) => a + b, 0);
  const p = bias.map((b) => b / biasSum);
  const out = w.map((row) => row.reduce((a, b) => a + b, 0));
  let r = new Array<number>(m).fill(1 / m);
  const d = 0.85;
  for (let iter = 0; iter < 60; iter++) {
    const next = new Array<number>(m).fill(0);
    for (let i = 0; i < m; i++) {
      let acc = 0;
      for (let j = 0; j < m; j++) if (w[j][i] > 0 && out[j] > 0) acc += (w[j][i] / out[j]) * r[j];
      next[i] = (1 - d) * p[i] + d * acc;
    }
    // dangling mass (sentences sharing no word with any other) goes back through the bias
    const mass = next.reduce((a, b) => a + b, 0);
    for (let i = 0; i < m; i++) next[i] += (1 - mass) * p[i];
    r = next;
  }
  idx.forEach((ui, k) => (score[ui] = r[k]));
  return { score, substantive, reported };
}

export interface Keyphrase {
  phrase: string;
  stems: string[];
  score: number;
  units: number[];
}

const PHRASE_BLOCK = /\b(january|february|march|april|may|june|july|august|september|october|november|december|\d+(?:st|nd|rd|th)|someone|somebody|anyone|hour|minutes|hours|days|weeks|minute|second|moment|thing|way|lot|bit|time|day|week|month|year|problem|relief|pleasure|news|call|number|morning|afternoon|evening|night|today|tomorrow|tonight|yesterday|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday|everything|something|anything|nothing|one|hello|thanks|the other party|office|team|side)\b/i;

const ING_NOUNS = /^(meeting|building|morning|evening|cleaning|booking|pricing|wedding|training|ceiling|heating|parking|funding|hearing|offering|listing|setting|filing|billing|shipping|housing|painting|planning|warning|reading|writing|landing|opening|ending|recording|scheduling|banking|clothing|flooring|plumbing|roofing|siding|wiring)$/i;

function cleanPhrase(p: string): string {
  // a chunk that runs into a participle ("a space heater running") ends before it
  const words = p.replace(/[.,!?;:]+$/g, '').split(/\s+/);
  while (words.length > 1 && /ing$/i.test(words[words.length - 1]) && !ING_NOUNS.test(words[words.length - 1])) words.pop();
  return words
    .join(' ')
    .replace(/[.,!?;:]+$/g, '')
    .replace(/^(and|or|but|so)\s+/i, '')
    .replace(/^(the|a|an|your|my|our|their|his|her|its|this|that|these|those|some|any|every|each|whole|other)\s+/i, '')
    .replace(/^(the|a|an|your|my|our|their|his|her|its|whole|other|same)\s+/i, '')
    .trim();
}

/** Noun phrases ranked by the TextRank weight of the sentences that contain their words. */
export function keyphrases(ct: CallText, ranking: Ranking, within?: Set<number>): Keyphrase[] {
  const stemWeight = new Map<string, number>();
  for (const u of ranking.substantive) {
    if (within && !within.has(u.idx)) continue;
    for (const s of new Set(u.stems)) stemWeight.set(s, (stemWeight.get(s) ?? 0) + ranking.score[u.idx] + 0.02);
  }
  const names = ct.speakers.flatMap((s) => [s.displayName, s.label, ...s.displayName.split(/\s+/)]).filter((x) => x && x.length > 2).map((x) => x.toLowerCase());
  const byKey = new Map<string, Keyphrase>();
  for (const u of ranking.substantive) {
    if (within && !within.has(u.idx)) continue;
    const doc = nlp(u.norm);
    const persons = (doc.people().out('array') as string[]).map((x) => x.toLowerCase().replace(/[.,!?;:']+$/g, ''));
    // compromise's noun chunks sometimes run into the verb ("the porch roof comes"); drop those
    const nouns = (doc.nouns().json() as Array<{ text: string; terms: Array<{ tags: string[] }> }>)
      .filter((n) => n.terms.length && !n.terms[n.terms.length - 1].tags.some((t) => t === 'Verb' || t === 'Gerund' || t === 'PresentTense'))
      .filter((n) => !n.terms.some((t) => t.tags.includes('Person') || t.tags.includes('FirstName')))
      .map((n) => n.text);
    const raw = [...nounChunks(u.norm), ...nouns];
    for (const r of raw) {
      const phrase = cleanPhrase(r);
      if (!phrase || phrase.length < 3 || /\d{3,}|@|^\d/.test(phrase) || PHRASE_BLOCK.test(phrase)) continue;
      if (names.some((nm) => phrase.toLowerCase().includes(nm)) || persons.some((p) => p && phrase.toLowerCase().includes(p))) continue;
      if (/^(i|you|we|they|he|she|it|me|us|them|him|her)$/i.test(phrase) || phrase.split(/\s+/).length > 4) continue;
      const ws = phrase.toLowerCase().split(/\s+/).filter((x) => !isStopword(x));
      if (!ws.length) continue;
      const stems = ws.map((x) => stemmer(x.replace(/'s$/, '')));
      const key = stems.join(' ');
      const weights = stems.map((s) => stemWeight.get(s) ?? 0);
      const score = (weights.reduce((a, b) => a + b, 0) / stems.length) * (1 + 0.35 * (stems.length - 1));
      const prev = byKey.get(key);
      if (prev) {
        prev.score += score * 0.25;
        if (!prev.units.includes(u.idx)) prev.units.push(u.idx);
      } else byKey.set(key, { phrase: phrase.toLowerCase().replace(/^(\w)/, (c) => c), stems, score, units: [u.idx] });
    }
  }
  const sorted = [...byKey.values()].sort((a, b) => b.score - a.score || a.phrase.localeCompare(b.phrase));
  // drop phrases whose words are all inside a better phrase ("roof" after "porch roof")
  const out: Keyphrase[] = [];
  for (const k of sorted) {
    if (out.some((o) => k.stems.every((s) => o.stems.includes(s)) || o.stems.every((s) => k.stems.includes(s)))) continue;
    out.push(k);
  }
  return out;
}

export interface SectionOut extends Section {
  units: Unit[];
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    const o = b.get(k);
    if (o) dot += v * o;
  }
  for (const v of b.values()) nb += v * v;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function bag(units: Unit[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const u of units) for (const s of u.stems) m.set(s, (m.get(s) ?? 0) + 1);
  return m;
}

/** Turn indexes at which a new topic starts (TextTiling depth scores over turn blocks). */
export function topicBoundaries(ct: CallText): number[] {
  const turns: Unit[][] = [];
  for (const u of ct.units) (turns[u.turn] ??= []).push(u);
  const T = turns.length;
  if (T < 4) return [];
  const sims: number[] = [];
  for (let g = 0; g < T - 1; g++) {
    const left = turns.slice(Math.max(0, g - 1), g + 1).flat();
    const right = turns.slice(g + 1, Math.min(T, g + 3)).flat();
    sims.push(cosine(bag(left), bag(right)));
  }
  const depth = sims.map((s, g) => {
    let lp = s;
    for (let k = g; k >= 0; k--) lp = Math.max(lp, sims[k]);
    let rp = s;
    for (let k = g; k < sims.length; k++) rp = Math.max(rp, sims[k]);
    return lp - s + (rp - s);
  });
  const mean = depth.reduce((a, b) => a + b, 0) / depth.length;
  const sd = Math.sqrt(depth.reduce((a, b) => a + (b - mean) ** 2, 0) / depth.length);
  const maxSections = Math.max(1, Math.min(6, Math.round(T / 3)));
  const order = depth.map((d, g) => ({ d, g })).sort((a, b) => b.d - a.d || a.g - b.g);
  const cuts: number[] = [];
  for (const { d, g } of order) {
    if (cuts.length >= maxSections - 1) break;
    if (d <= 0 || d < mean - sd / 2) continue;
    const start = g + 1; // the new section starts at turn g+1
    const all = [...cuts, start].sort((a, b) => a - b);
    const bounds = [0, ...all, T];
    if (bounds.some((b, i) => i > 0 && b - bounds[i - 1] < 2)) continue;
    cuts.push(start);
  }
  return cuts.sort((a, b) => a - b);
}

function importanceOf(u: Unit, ranking: Ranking, actionUnits: Set<number>): 'low' | 'medium' | 'high' {
  const scores = ranking.substantive.map((x) => ranking.score[x.idx]).sort((a, b) => b - a);
  if (!scores.length) return 'low';
  const hi = scores[Math.max(0, Math.floor(scores.length * 0.25) - 1)] ?? scores[0];
  const lo = scores[Math.floor(scores.length * 0.67)] ?? 0;
  const s = ranking.score[u.idx];
  if (actionUnits.has(u.idx) || s >= hi) return 'high';
  if (s <= lo) return 'low';
  return 'medium';
}

export function buildSections(ct: CallText, ranking: Ranking, actionUnits: Set<number>): SectionOut[] {
  const T = ct.segments.length;
  // a stretch with nothing to report (greetings, goodbyes) joins the section before it
  const reportable = (lo: number, hi: number) => ct.units.some((u) => u.turn >= lo && u.turn < hi && ranking.reported[u.idx] && ranking.substantive.includes(u));
  const bounds = [0];
  for (const c of [...topicBoundaries(ct), T]) {
    if (c === T || reportable(c, [...topicBoundaries(ct), T].find((x) => x > c) ?? T)) bounds.push(c);
  }
  if (bounds[bounds.length - 1] !== T) bounds.push(T);
  const sections: SectionOut[] = [];
  const usedTitles = new Set<string>();
  for (let k = 0; k + 1 < bounds.length; k++) {
    const units = ct.units.filter((u) => u.turn >= bounds[k] && u.turn < bounds[k + 1]);
    if (!units.length) continue;
    const within = new Set(units.map((u) => u.idx));
    const phrases = keyphrases(ct, ranking, within);
    let title = phrases.map((p) => capitalize(p.phrase)).find((t) => !usedTitles.has(t.toLowerCase()));
    const hasAction = units.some((u) => actionUnits.has(u.idx));
    if (!title) title = k === 0 ? 'Opening' : hasAction ? 'Next steps' : k === bounds.length - 2 ? 'Wrap-up' : `Topic ${k + 1}`;
    usedTitles.add(title.toLowerCase());
    const reportedUnits = units.filter((u) => ranking.reported[u.idx]);
    const substantiveHere = units.filter((u) => ranking.substantive.includes(u));
    const ordered = [...(substantiveHere.length ? substantiveHere : reportedUnits)].sort((a, b) => ranking.score[b.idx] - ranking.score[a.idx] || a.idx - b.idx);
    const top = ordered.find((u) => ranking.reported[u.idx] && !/ asks: "/.test(ranking.reported[u.idx]!)) ?? ordered[0];
    const summary = top ? ranking.reported[top.idx] ?? top.text : units.map((u) => u.text).join(' ');
    // long calls: keep the best few sentences of each section, in order
    const itemUnits = (reportedUnits.length > 8 ? [...reportedUnits].sort((a, b) => ranking.score[b.idx] - ranking.score[a.idx]).slice(0, 8) : reportedUnits).sort((a, b) => a.idx - b.idx);
    const type = hasAction ? 'next_steps' : k === 0 ? 'context' : substantiveHere.length === 0 ? 'closing' : 'discussion';
    sections.push({
      id: `sec_${String(sections.length + 1).padStart(3, '0')}`,
      title,
      type,
      summary,
      items: itemUnits.map((u) => ({
        text: ranking.reported[u.idx]!,
        importance: importanceOf(u, ranking, actionUnits),
        speaker: u.speaker.label,
        sourceSegmentIds: [u.segmentId],
      })),
      units,
    });
  }
  return sections;
}

export interface Bullet {
  header: string;
  startTimestamp: string;
  paragraphs: string[];
}

/** 3 to 6 bullets: one per section, then the agreed actions and the outcome when sections are few. */
export function buildBullets(ct: CallText, ranking: Ranking, sections: SectionOut[], actions: AnalysisActionItem[], outcome: string): Bullet[] | null {
  const bullets: Bullet[] = [];
  for (const s of sections) {
    const ordered = s.units
      .filter((u) => ranking.reported[u.idx] && ranking.substantive.includes(u))
      .sort((a, b) => ranking.score[b.idx] - ranking.score[a.idx])
      .slice(0, 2)
      .sort((a, b) => a.idx - b.idx);
    if (!ordered.length) continue;
    bullets.push({ header: s.title, startTimestamp: formatClock(s.units[0].start), paragraphs: ordered.map((u) => ranking.reported[u.idx]!) });
  }
  // long calls: merge the shortest neighbours until at most six remain
  while (bullets.length > 6) {
    let best = 0;
    for (let i = 1; i < bullets.length - 1; i++) if (bullets[i].paragraphs.length + bullets[i + 1].paragraphs.length < bullets[best].paragraphs.length + bullets[best + 1].paragraphs.length) best = i;
    const [a, b] = [bullets[best], bullets[best + 1]];
    bullets.splice(best, 2, { header: a.header, startTimestamp: a.startTimestamp, paragraphs: [...a.paragraphs, ...b.paragraphs].slice(0, 3) });
  }
  const segStart = (id: string | undefined) => ct.units.find((u) => u.segmentId === id)?.start ?? 0;
  if (bullets.length < 3 && actions.length) {
    bullets.push({
      header: 'Action items',
      startTimestamp: formatClock(segStart(actions[0].sourceSegmentIds?.[0])),
      paragraphs: actions.slice(0, 4).map((a) => `${a.ownerDisplayName ?? a.ownerSpeakerLabel ?? 'Someone'}: ${a.title}${a.dueDate ? ` (due ${a.dueDate})` : ''}.`),
    });
  }
  if (bullets.length < 3 && outcome) {
    const last = ranking.substantive[ranking.substantive.length - 1];
    bullets.push({ header: 'Outcome', startTimestamp: formatClock(last ? last.start : 0), paragraphs: [outcome] });
  }
  // still short: split the section bullets by time
  if (bullets.length < 3) {
    const subs = ranking.substantive.filter((u) => ranking.reported[u.idx]);
    if (subs.length < 3) return null;
    const per = Math.ceil(subs.length / 3);
    const parts = [subs.slice(0, per), subs.slice(per, 2 * per), subs.slice(2 * per)].filter((p) => p.length);
    const extra = bullets.filter((b) => b.header === 'Action items' || b.header === 'Outcome');
    const phr = keyphrases(ct, ranking);
    const timeBullets = parts.map((p, i) => {
      const within = new Set(p.map((u) => u.idx));
      const head = keyphrases(ct, ranking, within)[0]?.phrase ?? phr[i]?.phrase ?? `Part ${i + 1}`;
      return { header: capitalize(head), startTimestamp: formatClock(p[0].start), paragraphs: p.slice(0, 2).map((u) => ranking.reported[u.idx]!) };
    });
    const merged = [...timeBullets, ...extra].slice(0, 6);
    return merged.length >= 3 ? merged : null;
  }
  return bullets;
}

/**
 * Sentences for the executive summary: 2 to 4 reported sentences chosen by maximal marginal
 * relevance (rank, minus overlap with what is already chosen, minus a same-section penalty) so
 * that the summary covers the call rather than repeating its best-connected topic; in call order.
 */
export function executiveSentences(ranking: Ranking, sections: SectionOut[], actionUnits: Set<number>, duration: number, quotable: (u: Unit) => boolean = () => true): string[] {
  const candidates = ranking.substantive.filter((u) => ranking.reported[u.idx] && !/\?"$/.test(ranking.reported[u.idx]!) && quotable(u));
  const want = candidates.length >= 12 ? 4 : candidates.length >= 5 ? 3 : 2;
  const max = Math.max(...candidates.map((u) => ranking.score[u.idx]), 1e-9);
  const sectionOf = (u: Unit) => sections.findIndex((s) => s.units.includes(u));
  const chosen: Unit[] = [];
  // Start with what the call was about: the best sentence of its first part that is not itself a
  // follow-up; the follow-ups then compete on rank.
  const context = candidates
    .filter((u) => !actionUnits.has(u.idx) && u.start <= duration * 0.6)
    .sort((a, b) => ranking.score[b.idx] - ranking.score[a.idx] || a.idx - b.idx)[0];
  if (context) chosen.push(context);
  while (chosen.length < want && chosen.length < candidates.length) {
    let best: Unit | null = null;
    let bestValue = -Infinity;
    for (const u of candidates) {
      if (chosen.includes(u)) continue;
      const sim = Math.max(0, ...chosen.map((c) => jaccard(c.stems, u.stems)));
      const same = chosen.some((c) => sectionOf(c) === sectionOf(u)) ? 1 : 0;
      const value = ranking.score[u.idx] / max - 0.7 * sim - 0.25 * same;
      if (value > bestValue) {
        best = u;
        bestValue = value;
      }
    }
    if (!best) break;
    chosen.push(best);
  }
  return chosen.sort((a, b) => a.idx - b.idx).map((u) => ranking.reported[u.idx]!);
}

function jaccard(a: string[], b: string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  return A.size + B.size - inter ? inter / (A.size + B.size - inter) : 0;
}

export function phaseOf(u: Unit, duration: number, followup: boolean): 'opening' | 'middle' | 'closing' | 'followup' {
  if (followup) return 'followup';
  const pos = duration > 0 ? u.start / duration : 0;
  if (pos < 0.2) return 'opening';
  if (pos >= 0.8) return 'closing';
  return 'middle';
}

export function discussionPoints(ct: CallText, ranking: Ranking, sections: SectionOut[], actionUnits: Set<number>, planUnits: Set<number>) {
  const subs = ranking.substantive.filter((u) => ranking.reported[u.idx]);
  const k = Math.max(2, Math.min(8, Math.ceil(subs.length / 3)));
  const chosen = [...subs].sort((a, b) => ranking.score[b.idx] - ranking.score[a.idx] || a.idx - b.idx).slice(0, k);
  for (const u of subs) if (actionUnits.has(u.idx) && !chosen.includes(u) && chosen.length < 8) chosen.push(u);
  return chosen
    .sort((a, b) => a.idx - b.idx)
    .map((u) => {
      const section = sections.find((s) => s.units.includes(u));
      const topic = keyphrases(ct, ranking, new Set([u.idx]))[0]?.phrase ?? section?.title.toLowerCase() ?? null;
      return {
        text: ranking.reported[u.idx]!,
        topic: topic ?? 'general',
        // follow-up talk is the planning near the end of the call
        phase: phaseOf(u, ct.duration, (actionUnits.has(u.idx) || planUnits.has(u.idx)) && u.start >= ct.duration * 0.6),
        speakerId: u.speaker.speakerId,
        speakerLabel: u.speaker.label,
        speakerDisplayName: u.speaker.displayName,
        speakerRole: u.speaker.role,
        importance: importanceOf(u, ranking, actionUnits),
        sourceSegmentIds: [u.segmentId],
      };
    });
}

