// Crash at every step of processing on the embedded database, and a crash during an upload (the
// tests are in crash-chain.ts; the external database's chain is in crash-stages-external.test.ts).
import { crashTests } from './crash-chain.js';

crashTests(['embedded'], { uploadCrash: true });
