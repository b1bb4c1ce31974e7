// Crash at every step of processing on the external database (the tests are in crash-chain.ts).
// CI machines run PostgreSQL, and dbModes() fails there when it does not answer; elsewhere the
// file has nothing to run without it.
import { dbModes } from '../support/service.js';
import { crashTests } from './crash-chain.js';

// Decided before any test is registered: a top-level await after them lets the root test finish
// (and run its after hooks) before the suites exist.
const modes = await dbModes();
crashTests(modes.filter((m) => m === 'external'), { uploadCrash: false });
