// Shared pieces of the speed benchmarks: starting targets as child processes, running autocannon,
// the machine's load, and writing a report section.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { projectRoot } from '../../test/support/corpus.js';
import type { TargetOptions, TargetReady } from './target.js';

export interface Target extends TargetReady {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts bench/support/target.ts in a child process and waits for its READY line. */
export async function startTarget(kind: 'bare' | 'service', opts?: TargetOptions, nodeArgs: string[] = []): Promise<Target> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bench/support/target.ts', kind, JSON.stringify(opts ?? {})], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent', TEST_LOG_LEVEL: 'silent' },
  });
  const ready = await new Promise<TargetReady>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (.*)\n/.exec(buf);
      if (m) resolve(JSON.parse(m[1]) as TargetReady);
    });
    child.on('exit', (code) => reject(new Error(`benchmark target exited with ${code} before it was ready`)));
  });
  return {
    ...ready,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface LoadResult {
  rps: number;
  /** CPU ms per request of the measured process tree, when a probe was given. */
  cpuMsPerRequest: number | null;
  p50: number;
  /** Mean latency, ms (autocannon's percentiles have 1 ms resolution; the mean has more). */
  mean: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** autocannon against one URL; a short warm-up first so JIT and caches settle. */
export async function load(
  url: string,
  opts: { connections?: number; duration: number; headers?: Record<string, string>; warmup?: number; cpu?: () => Promise<number> },
): Promise<LoadResult> {
  const connections = opts.connections ?? 50;
  if (opts.warmup !== 0) await autocannon({ url, connections, duration: opts.warmup ?? 2, headers: opts.headers });
  const cpu0 = opts.cpu ? await opts.cpu() : 0;
  const r = await autocannon({ url, connections, duration: opts.duration, headers: opts.headers });
  const cpu1 = opts.cpu ? await opts.cpu() : 0;
  const total = r.requests.total || 1;
  return { rps: r.requests.average, cpuMsPerRequest: opts.cpu ? (cpu1 - cpu0) / total : null, p50: r.latency.p50, mean: r.latency.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

export function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/** The median of each measure over several runs of one load (rounds). */
export function medianResult(rs: LoadResult[]): LoadResult {
  const cpu = rs.map((r) => r.cpuMsPerRequest).filter((x): x is number => x !== null);
  return {
    rps: median(rs.map((r) => r.rps)),
    cpuMsPerRequest: cpu.length ? median(cpu) : null,
    p50: median(rs.map((r) => r.p50)),
    mean: median(rs.map((r) => r.mean)),
    p99: median(rs.map((r) => r.p99)),
    non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
  };
}

/**
 * Waits until the measured processes are idle (under 5 % of one core over a second, at most 60 s):
 * a service just started and seeded still compiles modules, runs its start-up sweeps and its
 * database writes back the seed, and a measurement taken then belongs to none of them.
 */
export async function settle(cpuMs: () => Promise<number> | number, opts: { idleShare?: number; maxMs?: number } = {}): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = await cpuMs();
    await new Promise((r) => setTimeout(r, 1000));
    const busy = ((await cpuMs()) - before) / 1000;
    if (busy < (opts.idleShare ?? 0.05) || Date.now() - started > (opts.maxMs ?? 60_000)) return Date.now() - started;
  }
}

/** `uptime`'s three load averages, recorded beside every measurement. */
export function loadAverage(): string {
  return os.loadavg().map((x) => x.toFixed(2)).join(' / ');
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export function today(): string {
  return new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/** Writes docs/bench/<name>.md, which bench/run.ts assembles into docs/benchmarks.md. */
export function writeSection(name: string, markdown: string): void {
  const file = path.join(projectRoot, 'docs/bench', `${name}.md`);
  // docs/bench/ may have been deleted to regenerate every report (bench/run.ts).
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, markdown.trim() + '\n');
  console.log(`wrote ${path.relative(projectRoot, file)}`);
}

export function table(head: string[], rows: Array<Array<string | number>>): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/**
 * CPU time (user + system, ms) used so far by processes and all their descendants, living and
 * reaped. The roots are the service process and, for the embedded PostgreSQL (its postmaster is
 * daemonised, so not a child), the postmaster serving `dataDir`; on the external PostgreSQL the
 * extra pids are the database's server processes. Unlike requests/s, CPU per request barely moves
 * with the machine's other load.
 */
export function treeCpuMs(rootPid: number, opts: { dataDir?: string; extraPids?: number[] } = {}): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  const roots = new Set([rootPid, ...(opts.extraPids ?? [])]);
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the parenthesised command: state ppid ... utime(14) stime(15) cutime(16) cstime(17).
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
      if (opts.dataDir && f[1] === '1' && s.includes('(postgres)') && fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`-D\0${opts.dataDir}/postgres\0`)) roots.add(Number(name));
    } catch {
      /* exited meanwhile */
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 20; depth++) {
      if (roots.has(p)) return true;
      p = stats.get(p)?.ppid ?? 0;
    }
    return false;
  };
  let ticks = 0;
  for (const [pid, s] of stats) if (inTree(pid)) ticks += s.ticks;
  return ticks * 10; // USER_HZ is 100 on Linux
}
