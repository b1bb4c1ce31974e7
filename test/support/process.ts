// Runs the service as a real process (`node --import tsx src/main.ts`), for tests of crashes,
// restarts and several processes sharing one queue.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { projectRoot } from './corpus.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnService(env: Record<string, string>, args: string[] = []): ServiceProcess {
  return spawnCaptured(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts'), ...args], env);
}

/** Runs a command in the project folder with a minimal environment, its output collected. */
export function spawnCaptured(command: string, args: string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Stops a process with `signal` and returns its exit code. A process still running after `graceMs`
 * is killed and the stop fails with the end of its output: a graceful stop that hangs names itself
 * instead of running into the test runner's timeout, which reports nothing of what hung.
 */
export async function stopWithin(proc: ServiceProcess, signal: NodeJS.Signals, graceMs = 120_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), graceMs)));
  const code = await Promise.race([proc.kill(signal), late]).finally(() => clearTimeout(timer));
  if (code !== 'late') return code;
  await proc.kill('SIGKILL');
  throw new Error(`the process did not stop within ${graceMs / 1000} s of ${signal}: ${proc.output().slice(-3000)}`);
}

/**
 * Waits for `check` while `proc` runs. Fails when the process exits first, and after `deadlineMs`
 * (far beyond any healthy run, however loaded the machine) with the process's output and whatever
 * `describe` reports of the state: a hang then says where it hung, where the runner's own timeout
 * would only say that the file took too long.
 */
export async function waitWhileRunning(
  what: string,
  check: () => Promise<boolean> | boolean,
  proc: ServiceProcess,
  opts: { deadlineMs?: number; describe?: () => Promise<string> } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.deadlineMs ?? 300_000);
  let exited: number | null | undefined;
  void proc.exited.then((code) => (exited = code));
  while (!(await check())) {
    if (exited !== undefined) throw new Error(`${what}: the service exited (${exited}) first: ${proc.output().slice(-1500)}`);
    if (Date.now() > deadline) {
      const state = opts.describe ? await opts.describe().catch((e: Error) => `state unavailable: ${e.message}`) : '';
      throw new Error(`${what}: not reached in ${((opts.deadlineMs ?? 300_000) / 1000).toFixed(0)} s. ${state}\nservice output: ${proc.output().slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits until GET /api/health answers 200 (or the process exits). */
export async function waitHealthy(port: number, proc: ServiceProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`service exited early (${proc.child.exitCode}): ${proc.output().slice(-2000)}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (r.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`service not healthy in time: ${proc.output().slice(-2000)}`);
}
