// Runs an external tool (ffmpeg, pocketsphinx, ...) without a shell, with a hard time limit and
// bounded output so that a hostile or broken input can neither hang a worker nor exhaust memory.
// Error messages name the tool and the failure kind only: arguments can hold file paths derived
// from user data and output can echo transcript text, so neither goes into a message.
import { spawn } from 'node:child_process';
import path from 'node:path';

export type ChildErrorKind = 'timeout' | 'output_limit' | 'exit' | 'spawn' | 'aborted';

export class ChildProcessError extends Error {
  constructor(
    readonly kind: ChildErrorKind,
    readonly command: string,
    message: string,
    readonly exitCode: number | null = null,
    readonly signal: NodeJS.Signals | null = null,
    /** The tail of stderr, for callers that inspect it; never put it into logs or user-facing errors. */
    readonly stderrTail = '',
    /** errno code of a spawn failure (ENOENT when the binary is missing). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ChildProcessError';
  }
}

export interface RunChildOptions {
  timeoutMs: number;
  maxStdoutBytes: number;
  /** Default 1 MiB. Stderr beyond the limit kills the child too (a tool stuck printing warnings). */
  maxStderrBytes?: number;
  signal?: AbortSignal;
  cwd?: string;
  /** Default: a minimal environment (PATH, HOME, locale, library path), so tools never see service secrets. */
  env?: NodeJS.ProcessEnv;
}

const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LD_LIBRARY_PATH', 'TMPDIR'];
function minimalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

export interface ChildResult {
  stdout: Buffer;
  /** The last ~64 KiB of stderr. */
  stderr: Buffer;
  exitCode: number;
  durationMs: number;
}

/** Stderr kept in memory: enough for a diagnosis, bounded however chatty the tool is. */
const STDERR_KEEP = 64 * 1024;

export function runChild(cmd: string, args: readonly string[], opts: RunChildOptions): Promise<ChildResult> {
  const tool = path.basename(cmd);
  const maxStderr = opts.maxStderrBytes ?? 1024 * 1024;
  return new Promise<ChildResult>((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new ChildProcessError('aborted', tool, `${tool} was not started: the operation was aborted`));
      return;
    }
    const started = Date.now();
    let child;
    try {
      child = spawn(cmd, args, {
        shell: false,
        cwd: opts.cwd,
        env: opts.env ?? minimalEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      reject(new ChildProcessError('spawn', tool, `${tool} could not be started (${code ?? 'error'})`, null, null, '', code));
      return;
    }

    const out: Buffer[] = [];
    const errChunks: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let failure: ChildProcessError | null = null;
    let settled = false;

    const kill = (why: ChildProcessError) => {
      if (failure) return;
      failure = why;
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    let errKept = 0;
    const stderrTail = () => Buffer.concat(errChunks).toString('utf8').slice(-4000);

    const timer = setTimeout(() => {
      kill(new ChildProcessError('timeout', tool, `${tool} exceeded its time limit of ${opts.timeoutMs} ms`));
    }, Math.max(1, opts.timeoutMs));
    const onAbort = () => kill(new ChildProcessError('aborted', tool, `${tool} was stopped: the operation was aborted`));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout!.on('data', (chunk: Buffer) => {
      if (failure) return;
      outBytes += chunk.length;
      if (outBytes > opts.maxStdoutBytes) {
        kill(new ChildProcessError('output_limit', tool, `${tool} produced more than ${opts.maxStdoutBytes} bytes of output`));
        return;
      }
      out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (failure) return;
      errBytes += chunk.length;
      if (errBytes > maxStderr) {
        kill(new ChildProcessError('output_limit', tool, `${tool} produced more than ${maxStderr} bytes of diagnostics`));
        return;
      }
      errChunks.push(chunk);
      errKept += chunk.length;
      while (errChunks.length > 1 && errKept - errChunks[0].length >= STDERR_KEEP) errKept -= errChunks.shift()!.length;
    });

    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };

    child.on('error', (err: NodeJS.ErrnoException) => {
      // 'error' without a running process means spawn failed; once killed it can also report kill errors.
      finish(() => {
        if (failure) reject(failure);
        else reject(new ChildProcessError('spawn', tool, `${tool} could not be started (${err.code ?? 'error'})`, null, null, '', err.code));
      });
    });
    child.on('close', (code, signal) => {
      finish(() => {
        if (failure) {
          reject(failure);
          return;
        }
        if (code !== 0) {
          reject(
            new ChildProcessError(
              'exit',
              tool,
              signal ? `${tool} was terminated by ${signal}` : `${tool} exited with code ${code}`,
              code,
              signal,
              stderrTail(),
            ),
          );
          return;
        }
        resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(errChunks), exitCode: 0, durationMs: Date.now() - started });
      });
    });
  });
}
