// The call pipeline's stages, in order: the one list every stage vocabulary derives from (stage
// names, the job that runs each, crash-test hold points, progress, timings, event steps). Adding a
// stage is a new module in this folder plus its entry here (README, Architecture).
import { decode } from './decode.js';
import { transcribe } from './transcribe.js';
import { diarize } from './diarize.js';
import { voice } from './voice.js';
import { resolve } from './resolve.js';
import { analyze } from './analyze.js';
import { complete } from './complete.js';
import type { StageJob, SubTiming } from './stage.js';

export const STAGES = [decode, transcribe, diarize, voice, resolve, analyze, complete] as const;

type AnyListed = (typeof STAGES)[number];
export type StageName = AnyListed['name'];
/** The processing-event steps the stages record under (shown in the API's processing events). */
export type StageStep = NonNullable<AnyListed['step']>;
/** Points of processing where a crash test can hold a job (TEST_HOLD_AT_STAGE), in processing order. */
export type HoldPoint = AnyListed['holds'][number];
export const HOLD_POINTS = STAGES.flatMap((s) => s.holds as readonly HoldPoint[]);
/** Timings of a completed call (PIPELINE COMPLETED event, `cas_pipeline_stage_*` metric labels): by stage, plus parts of stages. */
export type TimingName = StageName | SubTiming;

/** The stages a job runs, in order (the call job's, then the analysis job's). */
export function stagesOf(job: StageJob): readonly AnyListed[] {
  return STAGES.filter((s) => s.job === job);
}
