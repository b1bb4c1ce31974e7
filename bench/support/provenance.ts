// Every figure a benchmark publishes carries where it came from: the commit (and whether the tree had
// uncommitted changes), the data set and whether the component was tuned on it, and the machine's
// state while it ran. Reports put `provenanceLine(...)` directly under each table they write.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** in-sample: the component was fitted on this data; held-out: it never saw it. */
export type SampleKind = 'in-sample' | 'held-out' | 'not-applicable';

export interface Provenance {
  commit: string;
  dirty: boolean;
  date: string;
  dataset: string;
  sample: SampleKind;
  cores: number;
  cpu: string;
  /** 1-minute load averages at the start and the end of the measurement. */
  loadStart: number;
  loadEnd: number;
  node: string;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** Starts a measurement: call at the start, then `.finish()` when the figures are in. */
export function startProvenance(dataset: string, sample: SampleKind): { finish(): Provenance } {
  const loadStart = os.loadavg()[0];
  return {
    finish(): Provenance {
      return {
        commit: git(['rev-parse', '--short=10', 'HEAD']) || 'unknown',
        // docs/ is what the benchmarks write (and what `npm run bench` from an emptied docs/bench
        // starts from): changes there say nothing about the code that measured.
        dirty: git(['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)docs']) !== '',
        date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
        dataset,
        sample,
        cores: os.cpus().length,
        cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
        loadStart,
        loadEnd: os.loadavg()[0],
        node: process.version,
      };
    },
  };
}

/** One line of Markdown to put under a table: `Measured at <commit> ...`. */
export function provenanceLine(p: Provenance, command: string): string {
  const tree = p.dirty ? ' (with uncommitted changes)' : '';
  const sample = p.sample === 'not-applicable' ? '' : `, **${p.sample}**`;
  return `_Measured by \`${command}\` at commit ${p.commit}${tree} on ${p.date}; data: ${p.dataset}${sample}; ${p.cores} cores (${p.cpu}), load ${p.loadStart.toFixed(1)} → ${p.loadEnd.toFixed(1)}; Node ${p.node}._`;
}
