// The call pipeline's stages, in order: the one list every stage vocabulary derives from (stage
// names, crash-test hold points, progress, timings). Adding a stage is a new module in this folder
// plus its entry here (README, Architecture).
import { decode } from './decode.js';
import { transcribe } from './transcribe.js';
import { diarize } from './diarize.js';
import { voice } from './voice.js';
import { resolve } from './resolve.js';
import { analyze } from './analyze.js';
import { complete } from './complete.js';

export const STAGES = [decode, transcribe, diarize, voice, resolve, analyze, complete] as const;

export type StageName = (typeof STAGES)[number]['name'];
/** Points of processing where a crash test can hold a job (TEST_HOLD_AT_STAGE), in processing order. */
export type HoldPoint = (typeof STAGES)[number]['holds'][number];
export const HOLD_POINTS = STAGES.flatMap((s) => s.holds as readonly HoldPoint[]);
/** Timings of a completed call (PIPELINE COMPLETED event, `cas_pipeline_stage_*` metric labels): by stage, plus two parts of stages. */
export type TimingName = StageName | 'vad' | 'peaks';
