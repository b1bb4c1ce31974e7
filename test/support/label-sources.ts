// Whether a transcript's speakers were named from the evidence the corpus expects, or guessed.
// The corpus lists, per truth speaker, the label sources its evidence supports
// (`expect.naming.expectedLabelSources`, hints the corpus scorer does not score); a role that is
// right because the positional fallback (who speaks first) happened to guess right must be
// counted apart from one found in a greeting or a name.
import type { Truth } from './corpus.js';

export const POSITIONAL_FALLBACK = 'POSITIONAL_FALLBACK';

export interface LabelSourceCheck {
  /** Truth speakers (A, B) whose mapped transcript speaker has an expected label source. */
  agree: number;
  /** Truth speakers checked (those the corpus gives expected sources for). */
  of: number;
  /** Per truth speaker: the source the transcript gave and the ones the corpus expects. */
  bySpeaker: Record<string, { got: string | null; expected: string[]; agrees: boolean }>;
  /** The transcript labelled a speaker by the positional fallback. */
  positional: boolean;
  /** ... and the corpus expects evidence instead (no expected source of that speaker is the fallback). */
  positionalAgainstEvidence: boolean;
}

/**
 * Compares the label sources of a scored transcript with the corpus's expectations. `score` is
 * the corpus scorer's result for it (its role details map truth speakers to transcript speakers).
 */
export function checkLabelSources(
  truth: Pick<Truth, 'expect'>,
  transcript: { speakers: Array<{ speakerId: string; labelSource?: string | null }> },
  score: { details: { roles: Record<string, { hypSpeaker: string | null }> } },
): LabelSourceCheck {
  const expected: Record<string, string[]> = (truth.expect as any)?.naming?.expectedLabelSources ?? {};
  const bySpeaker: LabelSourceCheck['bySpeaker'] = {};
  let agree = 0;
  let positional = false;
  let positionalAgainstEvidence = false;
  for (const [tid, want] of Object.entries(expected)) {
    const hyp = score.details.roles[tid]?.hypSpeaker ?? null;
    const got = transcript.speakers.find((s) => s.speakerId === hyp)?.labelSource ?? null;
    const agrees = got !== null && want.includes(got);
    if (agrees) agree++;
    if (got === POSITIONAL_FALLBACK) {
      positional = true;
      if (!want.includes(POSITIONAL_FALLBACK)) positionalAgainstEvidence = true;
    }
    bySpeaker[tid] = { got, expected: want, agrees };
  }
  return { agree, of: Object.keys(expected).length, bySpeaker, positional, positionalAgainstEvidence };
}
