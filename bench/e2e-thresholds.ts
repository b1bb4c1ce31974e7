// Evidence that the corpus end-to-end test's thresholds catch a regression: runs
// test/e2e/corpus.test.ts as it is and with a deliberately worse recogniser (a share of the
// recognised words replaced, CORPUS_E2E_CORRUPT_WORDS), and writes docs/bench/e2e-thresholds.md:
// the figures each run measured beside the thresholds, and whether the test passed.
//
//   node --import tsx bench/e2e-thresholds.ts [--corrupt 0.2]
//
// Recognitions are cached (test/support/recognition-cache.ts), so only the first run on a machine
// pays for the recogniser; the degraded run corrupts the cached words after recognition.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../test/support/corpus.js';
import { THRESHOLDS } from '../test/e2e/corpus-thresholds.js';
import { provenanceLine, startProvenance } from './support/provenance.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Measured {
  corruptShare: number;
  calls: Array<{ id: string; format: string; wer: number; attribution: number; roles: number; naming: number }>;
  meanWer: number;
  meanAttribution: number;
  meanRoles: number;
  cleanNaming: number;
  labelSourceAgreement: number;
  labelSourcesChecked: number;
  positionalAgainstEvidence: string[];
}

function runTest(corrupt: number): { passed: boolean; measured: Measured; failures: string[] } {
  const report = path.join(os.tmpdir(), `e2e-thresholds-${process.pid}-${corrupt}.json`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-timeout=7200000', '--test-reporter=spec', 'test/e2e/corpus.test.ts'], {
    cwd: projectRoot,
    env: { ...process.env, SERVICE_ENV: 'test', CORPUS_E2E_REPORT: report, CORPUS_E2E_CORRUPT_WORDS: String(corrupt) },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!fs.existsSync(report)) throw new Error(`the corpus test wrote no figures (exit ${r.status}):\n${r.stdout.slice(-3000)}`);
  const measured = JSON.parse(fs.readFileSync(report, 'utf8')) as Measured;
  fs.rmSync(report);
  // The failing thresholds, as the test's assertion lists them.
  // (The spec reporter prints a failure twice: where it happens and in the summary.)
  const failures = [...new Set([...r.stdout.matchAll(/^\s*\+\s+'(.+)',?$/gm)].map((m) => m[1]))];
  return { passed: r.status === 0, measured, failures };
}

const f3 = (x: number) => x.toFixed(3);

function main(): void {
  const corrupt = Number(arg('--corrupt') ?? 0.2);
  const p = startProvenance('synthetic corpus, 12 calls uploaded through the API in six formats (two calls each)', 'in-sample');
  const clean = runTest(0);
  const degraded = runTest(corrupt);
  const worst = (m: Measured) => m.calls.reduce((a, c) => (c.wer > a.wer ? c : a));
  const minAttr = (m: Measured) => Math.min(...m.calls.map((c) => c.attribution));
  const row = (what: string, threshold: string, get: (m: Measured) => string) => `| ${what} | ${threshold} | ${get(clean.measured)} | ${get(degraded.measured)} |`;
  const table = [
    `| figure | threshold | measured | recogniser degraded (${Math.round(corrupt * 100)} % of words replaced) |`,
    '|---|---|---|---|',
    row('worst call WER', `<= ${THRESHOLDS.maxCallWer}`, (m) => `${f3(worst(m).wer)} (${worst(m).id}, ${worst(m).format})`),
    row('mean WER', `<= ${THRESHOLDS.maxMeanWer}`, (m) => f3(m.meanWer)),
    row('lowest call attribution', `>= ${THRESHOLDS.minCallAttribution}`, (m) => f3(minAttr(m))),
    row('mean attribution', `>= ${THRESHOLDS.minMeanAttribution}`, (m) => f3(m.meanAttribution)),
    row('mean role accuracy', `>= ${THRESHOLDS.minMeanRoles}`, (m) => f3(m.meanRoles)),
    row('naming on mono16k.wav and stereo.wav', `>= ${THRESHOLDS.minCleanNaming}`, (m) => f3(m.cleanNaming)),
    row('speakers with an expected label source', `>= ${THRESHOLDS.minLabelSourceAgreement}`, (m) => `${m.labelSourceAgreement}/${m.labelSourcesChecked}`),
    row('positional fallback against evidence', `<= ${THRESHOLDS.maxPositionalAgainstEvidence}`, (m) => `${m.positionalAgainstEvidence.length}${m.positionalAgainstEvidence.length ? ` (${m.positionalAgainstEvidence.join(', ')})` : ''}`),
    `| **test result** | | **${clean.passed ? 'passed' : 'FAILED'}** | **${degraded.passed ? 'passed' : 'failed'}** |`,
  ];
  const doc = `## End-to-end thresholds: the corpus test fails on a regression

Written by \`bench/e2e-thresholds.ts\`. \`test/e2e/corpus.test.ts\` uploads the twelve corpus calls
through the API (formats rotating over mono16k.wav, stereo.wav, call.m4a, call.mp3, call.ogg,
call.aac) and checks the transcripts against thresholds set just below what it measures. To show
they bite, the same test runs again with the recogniser's word error rate roughly doubled: a test-only
wrapper (\`test/support/degraded-recogniser.ts\`, \`CORPUS_E2E_CORRUPT_WORDS=${corrupt}\`) replaces
${Math.round(corrupt * 100)} % of the recognised words by a word no call says. **In-sample**: the
pipeline was tuned on these calls.

${table.join('\n')}

${provenanceLine(p.finish(), 'node --import tsx bench/e2e-thresholds.ts')}

${degraded.failures.length ? `Thresholds the degraded run failed:\n\n${degraded.failures.map((x) => `- ${x.replace(/\\'/g, "'")}`).join('\n')}\n` : ''}`;
  const out = path.join(projectRoot, 'docs/bench/e2e-thresholds.md');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, doc);
  console.log(doc);
  if (!clean.passed || degraded.passed) process.exitCode = 1;
}

main();
