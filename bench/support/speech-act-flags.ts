// The benchmarks' switches for the speech-act model the embedded analyzer uses beside its rules
// (src/pipeline/analysis/embedded/speech-acts.ts): another model file (a cross-validation fold's),
// none (the rules alone, the "before" figures), other thresholds. Not part of the service's config.
import { useSpeechActModel, useSpeechActThresholds, type SpeechActThresholds } from '../../src/pipeline/analysis/embedded/speech-acts.js';

export function applySpeechActFlags(model: string | undefined, thresholds: string | undefined): void {
  if (model !== undefined) useSpeechActModel(model === 'none' ? null : model);
  if (thresholds !== undefined) {
    const t: Partial<SpeechActThresholds> = {};
    for (const kv of thresholds.split(',')) {
      const [k, v] = kv.split('=');
      if (k !== 'add' && k !== 'intent' && k !== 'veto') throw new Error(`--speech-act-thresholds: unknown ${k}`);
      t[k] = Number(v);
    }
    useSpeechActThresholds(t);
  }
}
