// Reported speech for the summaries: a transcript sentence quoted as said and attributed to its
// speaker. Earlier versions rewrote sentences in the third person (pronouns, verb agreement), which
// turned recognition errors into false statements about the other party; a quote says only what was
// said. Sentences below the recogniser's confidence floor are not quoted at all.
import type { Speaker, Unit } from './text.js';

const PLEASANTRY = /^(?:thanks|thank you|thank|have a (?:nice|good|great|lovely|wonderful)|see you|talk soon|speak soon|bye|goodbye|take care|my pleasure|you too|good (?:morning|afternoon|evening|night)[.!]?$|hello\??$|hi\??$)/i;

function stripOpeners(s: string, speakers: Speaker[]): string {
  let t = s.trim();
  const names = speakers.flatMap((sp) => [sp.displayName, sp.displayName.split(/\s+/)[0]]).filter((n) => n && n.length > 1);
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const nameAlt = names.length ? names.map(esc).join('|') : '(?!)';
  for (let i = 0; i < 3; i++) {
    const before = t;
    t = t
      .replace(/^(?:hi|hello|hey|oh|well|so|okay|ok|yes|yeah|sure|great|perfect|look|listen|honestly|right|fine|understood|no problem|got it|of course|and|but|just|also|thanks|thank you)\b[,.!]?\s+/i, '')
      .replace(new RegExp(`^(?:${nameAlt})\\s*,\\s*`, 'i'), '')
      .replace(new RegExp(`,\\s*(?:(?:mr|mrs|ms|miss|dr)\\.?\\s+)?(?:${nameAlt})\\s*([.?!]?)$`, 'i'), '$1');
    if (t === before) break;
  }
  return t;
}

/**
 * The sentence of `unit` as said, attributed to its speaker (`Dana Reyes: "The new card arrives
 * on Monday."`). Only openers ("okay,", "hi Sam,") and vocatives are stripped: rewriting pronouns
 * turned recognition errors into false statements about the other party, so nothing else is
 * changed. Returns null for a sentence with nothing to report (a greeting, an acknowledgement) and
 * for one the recogniser was unsure of (a segment of LOW alignment confidence is not quoted).
 * `other` is kept for the callers' signature; the quote needs no addressee.
 */
export function report(unit: Unit, _other: Speaker | null, speakers: Speaker[]): string | null {
  const speakerName = unit.speaker.displayName || unit.speaker.label;
  if (isBelowConfidenceFloor(unit)) return null;
  if (PLEASANTRY.test(unit.text.trim())) return null;
  let s = stripOpeners(unit.norm, speakers);
  // an unpunctuated run of a whole turn is no sentence to quote
  if (!s || s.split(/\s+/).length < 3 || s.split(/\s+/).length > 30 || PLEASANTRY.test(s)) return null;
  s = s.replace(/\s+/g, ' ').replace(/\s+([,.?!])/g, '$1').trim();
  if (!/[.?!]$/.test(s)) s += '.';
  return `${speakerName}: "${s[0].toUpperCase()}${s.slice(1)}"`;
}

/** Segments the recogniser was unsure of are not quoted in summaries or items (the confidence floor). */
export function isBelowConfidenceFloor(unit: Unit): boolean {
  return /^(LOW|VERY_LOW)$/i.test(unit.confidence);
}
