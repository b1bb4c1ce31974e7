// Builds the recogniser's phone-call language model into dist/call-model/ unless it is there
// (run by scripts/bootstrap.sh and the container image). See call-language-model.ts.
import fs from 'node:fs';
import path from 'node:path';
import { buildCallLanguageModel, findCallLanguageModel } from '../src/pipeline/transcription/call-language-model.js';
import { DEFAULT_POCKETSPHINX_MODEL_DIR } from '../src/pipeline/transcription/pocketsphinx.js';

const base = path.join(DEFAULT_POCKETSPHINX_MODEL_DIR, 'en-us.lm.bin');
if (!fs.existsSync(base)) {
  console.error(`build-call-model: ${base} is missing (Debian package pocketsphinx-en-us); the recogniser cannot run without it`);
  process.exit(1);
}
if (!findCallLanguageModel(base)) {
  console.error('bootstrap: building the phone-call language model (once per machine, about a minute)');
  const built = await buildCallLanguageModel(base, undefined, (msg) => console.error(`bootstrap: ${msg}`));
  console.error(`bootstrap: phone-call language model ready: ${path.relative(process.cwd(), built.path)}`);
}
