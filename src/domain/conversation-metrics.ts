// Conversation metrics of a call (analysis key `conversationMetrics`), measured from the
// transcript's timing, not by a model, so every analysis run (pipeline, re-analysis, a re-run after
// speaker corrections) gets the same numbers from the same transcript.
//
// The stored transcript keeps the recogniser's word times as segment bounds: a segment starts at
// its first word's start and ends at its last word's end, and a pause longer than the segmentation
// threshold starts a new segment. So talk time is the sum of segment spans and a silence is a
// stretch covered by no segment.
//
// Definitions:
// - a turn is a maximal run of consecutive segments (in start order) of one speaker;
// - talk time of a party is the sum of its segments' spans; talk share is that over all parties' talk;
// - words per minute: words in the party's segments over its talk time;
// - the longest monologue is the longest turn, from its first start to its last end;
// - an interruption is a turn that starts before the previous speaker's turn has ended (overlap),
//   or within INTERRUPTION_GAP_SECONDS of its end while that turn's text ends mid-sentence (no
//   closing . ! ? or …); it is counted for the party that starts the turn;
// - silence is the part of the call covered by no segment; silence share is silence over the call's duration;
// - response latency is the gap between the end of a turn and the start of the next speaker's turn
//   (0 when they overlap), counted for the party who responds.
import { Type, type Static } from '@sinclair/typebox';
import type { TranscriptSegment } from './transcript.js';

export const CONVERSATION_METRICS_VERSION = 1;
export const INTERRUPTION_GAP_SECONDS = 0.2;

const Seconds = Type.Number({ minimum: 0 });
const Share = Type.Number({ minimum: 0, maximum: 1 });
const Role = Type.Union([Type.Literal('USER'), Type.Literal('CONTACT'), Type.Literal('UNKNOWN')]);

export const PartyMetrics = Type.Object(
  {
    speakerId: Type.String(),
    displayName: Type.String(),
    role: Role,
    talkSeconds: Seconds,
    talkShare: Share,
    wordCount: Type.Integer({ minimum: 0 }),
    wordsPerMinute: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'null when the party did not speak.' }),
    turnCount: Type.Integer({ minimum: 0 }),
    longestMonologueSeconds: Seconds,
    interruptionCount: Type.Integer({ minimum: 0, description: 'Turns this party started by interrupting the other.' }),
    averageResponseLatencySeconds: Type.Union([Seconds, Type.Null()], { description: 'Mean gap before this party\'s turns that answer the other; null without any.' }),
  },
  { additionalProperties: true },
);

export const ConversationMetrics = Type.Object(
  {
    version: Type.Integer({ description: `${CONVERSATION_METRICS_VERSION}: the definitions documented here.` }),
    durationSeconds: Seconds,
    talkSeconds: Type.Number({ minimum: 0, description: 'Time in which at least one party speaks.' }),
    overlapSeconds: Type.Number({ minimum: 0, description: 'Time in which both parties speak at once.' }),
    silenceSeconds: Seconds,
    silenceShare: Share,
    turnCount: Type.Integer({ minimum: 0 }),
    interruptionCount: Type.Integer({ minimum: 0 }),
    longestMonologue: Type.Union([
      Type.Object({ speakerId: Type.String(), displayName: Type.String(), role: Role, seconds: Seconds, startSeconds: Seconds, segmentIds: Type.Array(Type.String()) }, { additionalProperties: true }),
      Type.Null(),
    ]),
    responseLatency: Type.Object(
      {
        count: Type.Integer({ minimum: 0 }),
        averageSeconds: Type.Union([Seconds, Type.Null()]),
        medianSeconds: Type.Union([Seconds, Type.Null()]),
      },
      { additionalProperties: true },
    ),
    parties: Type.Array(PartyMetrics),
  },
  {
    additionalProperties: true,
    description:
      'Measured from the transcript\'s timing (segment bounds are word times), not by a model. A turn is a run of consecutive segments of one speaker; ' +
      `an interruption is a turn that starts while the other party still speaks, or within ${INTERRUPTION_GAP_SECONDS} s of the end of the other's turn when that turn ends mid-sentence; ` +
      'silence is time covered by no segment; response latency is the gap from the end of one party\'s turn to the start of the other\'s (0 on overlap). Seconds are rounded to 0.01, shares to 0.001.',
  },
);
export type ConversationMetrics = Static<typeof ConversationMetrics>;
export type PartyMetrics = Static<typeof PartyMetrics>;

type Segment = Pick<TranscriptSegment, 'id' | 'speakerId' | 'speakerDisplayName' | 'role' | 'startSeconds' | 'endSeconds' | 'text'>;

interface Turn {
  speakerId: string;
  start: number;
  end: number;
  lastText: string;
  segmentIds: string[];
}

const ms = (n: number) => Math.round(n * 1000) / 1000;
const round2 = (n: number) => Math.round(n * 100) / 100;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const SENTENCE_END = /[.!?…]["')\]]*\s*$/;

export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/** Total length of the union of intervals. */
function unionSeconds(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [s, e] of sorted) {
    if (s > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else if (e > curEnd) {
      curEnd = e;
    }
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

export function computeConversationMetrics(transcript: { durationSeconds: number; segments: Segment[] }): ConversationMetrics {
  const segments = transcript.segments
    .filter((s) => Number.isFinite(s.startSeconds) && Number.isFinite(s.endSeconds))
    // Whole milliseconds (the recognisers' resolution) keep sums and medians free of float noise.
    .map((s) => {
      const start = Math.max(0, ms(s.startSeconds));
      return { ...s, startSeconds: start, endSeconds: Math.max(start, ms(s.endSeconds)) };
    })
    .sort((a, b) => a.startSeconds - b.startSeconds || a.endSeconds - b.endSeconds);
  const lastEnd = segments.reduce((m, s) => Math.max(m, s.endSeconds), 0);
  const duration = Math.max(Number.isFinite(transcript.durationSeconds) ? transcript.durationSeconds : 0, lastEnd);

  const turns: Turn[] = [];
  for (const s of segments) {
    const cur = turns[turns.length - 1];
    if (cur && cur.speakerId === s.speakerId) {
      cur.end = Math.max(cur.end, s.endSeconds);
      cur.lastText = s.text;
      cur.segmentIds.push(s.id);
    } else {
      turns.push({ speakerId: s.speakerId, start: s.startSeconds, end: s.endSeconds, lastText: s.text, segmentIds: [s.id] });
    }
  }

  const parties = new Map<string, PartyMetrics & { latencies: number[] }>();
  for (const s of segments) {
    let p = parties.get(s.speakerId);
    if (!p) {
      p = {
        speakerId: s.speakerId,
        displayName: s.speakerDisplayName,
        role: s.role,
        talkSeconds: 0,
        talkShare: 0,
        wordCount: 0,
        wordsPerMinute: null,
        turnCount: 0,
        longestMonologueSeconds: 0,
        interruptionCount: 0,
        averageResponseLatencySeconds: null,
        latencies: [],
      };
      parties.set(s.speakerId, p);
    }
    p.talkSeconds += s.endSeconds - s.startSeconds;
    p.wordCount += countWords(s.text);
  }

  let interruptions = 0;
  const latencies: number[] = [];
  let longest: Turn | null = null;
  turns.forEach((turn, i) => {
    const p = parties.get(turn.speakerId)!;
    p.turnCount++;
    p.longestMonologueSeconds = Math.max(p.longestMonologueSeconds, turn.end - turn.start);
    if (!longest || turn.end - turn.start > longest.end - longest.start) longest = turn;
    if (i === 0) return;
    const prev = turns[i - 1];
    const gap = ms(turn.start - prev.end);
    const interrupted = gap < 0 || (gap < INTERRUPTION_GAP_SECONDS && !SENTENCE_END.test(prev.lastText));
    if (interrupted) {
      interruptions++;
      p.interruptionCount++;
    }
    const latency = Math.max(0, ms(gap));
    latencies.push(latency);
    p.latencies.push(latency);
  });

  const totalPartyTalk = [...parties.values()].reduce((sum, p) => sum + p.talkSeconds, 0);
  const intervals = segments.map((s) => [s.startSeconds, s.endSeconds] as [number, number]);
  const talk = unionSeconds(intervals);
  const silence = Math.max(0, duration - talk);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const median = (xs: number[]) => {
    if (!xs.length) return null;
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const avgLatency = mean(latencies);
  const medLatency = median(latencies);
  const top = longest as Turn | null;
  const topParty = top ? parties.get(top.speakerId)! : null;

  return {
    version: CONVERSATION_METRICS_VERSION,
    durationSeconds: round2(duration),
    talkSeconds: round2(talk),
    overlapSeconds: round2(Math.max(0, totalPartyTalk - talk)),
    silenceSeconds: round2(silence),
    silenceShare: duration > 0 ? round3(silence / duration) : 0,
    turnCount: turns.length,
    interruptionCount: interruptions,
    longestMonologue:
      top && topParty
        ? { speakerId: top.speakerId, displayName: topParty.displayName, role: topParty.role, seconds: round2(top.end - top.start), startSeconds: round2(top.start), segmentIds: top.segmentIds }
        : null,
    responseLatency: {
      count: latencies.length,
      averageSeconds: avgLatency === null ? null : round2(avgLatency),
      medianSeconds: medLatency === null ? null : round2(medLatency),
    },
    parties: [...parties.values()].map(({ latencies: own, ...p }) => {
      const ownMean = mean(own);
      return {
        ...p,
        talkSeconds: round2(p.talkSeconds),
        talkShare: totalPartyTalk > 0 ? round3(p.talkSeconds / totalPartyTalk) : 0,
        wordsPerMinute: p.talkSeconds > 0 ? Math.round((p.wordCount / p.talkSeconds) * 60 * 10) / 10 : null,
        longestMonologueSeconds: round2(p.longestMonologueSeconds),
        averageResponseLatencySeconds: ownMean === null ? null : round2(ownMean),
      };
    }),
  };
}
