// The analysis development set (bench/dialogues/, corpus format) is split by this fixed list:
// the held-out calls are only ever reported, never looked at to tune the analyzer; every other
// dialogue in the folder is the dev part. The held-out part was written and committed before the
// analyzer was changed for it (see the history of this file).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const analysisDialoguesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dialogues');

export const HELD_OUT_IDS: readonly string[] = [
  'babysitter-saturday',
  'city-tax-balance',
  'clinic-specialist-referral',
  'colleague-zoom-review',
  'courier-missed-delivery',
  'credit-union-mortgage-docs',
  'dmv-license-renewal',
  'electrician-panel-quote',
  'gym-membership-cancel',
  'insurance-hail-claim',
  'landlord-lease-renewal',
  'mom-party-photos',
  'plumber-leak-visit',
  'recruiter-teams-screen',
  'school-field-trip-form',
  'vet-bloodwork-normal',
];

export function analysisDialogueIds(): string[] {
  return fs.readdirSync(analysisDialoguesDir).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
}

export function devIds(): string[] {
  const held = new Set(HELD_OUT_IDS);
  return analysisDialogueIds().filter((id) => !held.has(id));
}
