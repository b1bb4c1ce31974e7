// Worker threads for the pipeline's synchronous, CPU-bound stages (the embedded analyzer: about
// 12 s on a 3-hour transcript; mono diarization: about 20 s on a 10-minute call), so that they never
// block the event loop that serves requests and runs jobs (issue 22). The service's process only
// copies a request to a thread and the answer back.
//
// Threads start on first use (the stage's modules load once per thread), take one task at a time,
// and end after a minute without work; at most `size` run at once, further tasks wait in order.
// An aborted task ends its thread (a synchronous computation cannot be interrupted otherwise) and a
// new one starts for the next.
//
// The project runs TypeScript through tsx: a thread started on a .ts file would not have tsx's
// loader, so the thread's entry is imported through tsx's API (tsImport); compiled to .js it is
// started directly.
import { Worker, parentPort, type Transferable } from 'node:worker_threads';
import { PipelineError, type PipelineFailureReason } from './types.js';

interface ThreadRequest<Req> {
  id: number;
  request: Req;
}

/** An error as it crosses from a thread: its class name, message and (for the pipeline's and the embedders' errors) reason. */
export interface ThreadError {
  name: string;
  message: string;
  reason?: string;
  retryable?: boolean;
}

type ThreadReply<Res> = { id: number; ok: true; value: Res } | { id: number; ok: false; error: ThreadError };

interface Task<Req, Res> {
  id: number;
  request: Req;
  transfer: Transferable[];
  signal?: AbortSignal;
  resolve(value: Res): void;
  reject(e: unknown): void;
}

interface Slot<Req, Res> {
  worker: Worker;
  task: Task<Req, Res> | null;
  idleTimer: NodeJS.Timeout | null;
}

const IDLE_MS = 60_000;

/**
 * The entry module `name` (without extension) beside the module whose `import.meta.url` is `base`,
 * in the form the running code has (.ts under tsx, .js compiled).
 */
export function threadEntry(base: string, name: string): URL {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

function startWorker(entry: URL): Worker {
  if (entry.pathname.endsWith('.ts')) {
    const api = import.meta.resolve('tsx/esm/api');
    const code = `import(${JSON.stringify(api)}).then((api) => api.tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(entry.href)}))`;
    return new Worker(code, { eval: true, execArgv: [] });
  }
  return new Worker(entry, { execArgv: [] });
}

export interface ThreadPoolOptions {
  /** What the threads run, for the errors of lost and closed threads ("analysis", "diarization"). */
  work: string;
  /** The failure reason of a task whose thread died. */
  lostReason: PipelineFailureReason;
  /** Rebuilds errors of the stage's own classes (a PipelineError is rebuilt without it); null: a plain Error. */
  revive?: (error: ThreadError) => Error | null;
}

export class ThreadPool<Req, Res> {
  private readonly slots = new Set<Slot<Req, Res>>();
  private readonly waiting: Task<Req, Res>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly entry: URL,
    private readonly size: number,
    private readonly opts: ThreadPoolOptions,
  ) {}

  run(request: Req, signal?: AbortSignal, transfer: Transferable[] = []): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      if (this.closed) return reject(new PipelineError('internal_error', `the ${this.opts.work} threads are closed`, true));
      if (signal?.aborted) return reject(signal.reason);
      // The listener goes with the task: a long-lived signal (the queue's shutdown signal) would
      // otherwise gather one per task.
      const onAbort = () => this.abort(task);
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const task: Task<Req, Res> = {
        id: this.nextId++,
        request,
        transfer,
        signal,
        resolve: (v) => (settle(), resolve(v)),
        reject: (e) => (settle(), reject(e)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(task);
      this.dispatch();
    });
  }

  /** Ends every thread; tasks running or waiting fail as retryable. */
  async close(): Promise<void> {
    this.closed = true;
    const closed = () => new PipelineError('internal_error', `the ${this.opts.work} threads were closed`, true);
    for (const t of this.waiting.splice(0)) t.reject(closed());
    await Promise.all([...this.slots].map((s) => this.retire(s, closed())));
  }

  /** Threads alive now (for tests). */
  threads(): number {
    return this.slots.size;
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      let slot = [...this.slots].find((s) => s.task === null);
      if (!slot) {
        if (this.slots.size >= this.size) return;
        slot = this.spawn();
      }
      const task = this.waiting.shift()!;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.idleTimer = null;
      slot.task = task;
      slot.worker.ref();
      const message: ThreadRequest<Req> = { id: task.id, request: task.request };
      slot.worker.postMessage(message, task.transfer);
    }
  }

  private spawn(): Slot<Req, Res> {
    const slot: Slot<Req, Res> = { worker: startWorker(this.entry), task: null, idleTimer: null };
    this.slots.add(slot);
    slot.worker.on('message', (reply: ThreadReply<Res>) => {
      const task = slot.task;
      if (!task || task.id !== reply.id) return;
      slot.task = null;
      if (reply.ok) task.resolve(reply.value);
      else task.reject(this.revive(reply.error));
      this.idle(slot);
      this.dispatch();
    });
    // A thread that dies (out of memory, a crash in the stage) fails its task, which a retry may
    // repeat; the next task gets a new thread.
    const lost = (why: string) => {
      if (!this.slots.delete(slot)) return;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.task?.reject(new PipelineError(this.opts.lostReason, `the ${this.opts.work} thread ${why}`, true));
      slot.task = null;
      this.dispatch();
    };
    slot.worker.on('error', () => lost('failed'));
    slot.worker.on('exit', (code) => lost(`exited with code ${code}`));
    return slot;
  }

  private revive(error: ThreadError): Error {
    if (error.name === 'PipelineError' && error.reason) return new PipelineError(error.reason as PipelineFailureReason, error.message, error.retryable ?? false);
    return this.opts.revive?.(error) ?? new Error(error.message);
  }

  private idle(slot: Slot<Req, Res>): void {
    // An idle thread does not keep the process alive, and ends after a while without work.
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => void this.retire(slot, null), IDLE_MS);
    slot.idleTimer.unref();
  }

  private async retire(slot: Slot<Req, Res>, reason: unknown): Promise<void> {
    if (!this.slots.delete(slot)) return;
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    const task = slot.task;
    slot.task = null;
    if (task && reason !== null) task.reject(reason);
    await slot.worker.terminate().catch(() => undefined);
    this.dispatch();
  }

  private abort(task: Task<Req, Res>): void {
    const queued = this.waiting.indexOf(task);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      task.reject(task.signal!.reason);
      return;
    }
    const slot = [...this.slots].find((s) => s.task === task);
    if (slot) void this.retire(slot, task.signal!.reason);
  }
}

/**
 * The thread side: answers each request with `handle`'s value, or with the error's message and
 * pipeline reason. Called once by a thread entry module.
 */
export function serveThread<Req, Res>(handle: (request: Req) => Promise<Res>, transferOf: (value: Res) => Transferable[] = () => []): void {
  parentPort!.on('message', async ({ id, request }: ThreadRequest<Req>) => {
    let reply: ThreadReply<Res>;
    let transfer: Transferable[] = [];
    try {
      const value = await handle(request);
      reply = { id, ok: true, value };
      transfer = transferOf(value);
    } catch (err) {
      const e = err as Error & { reason?: unknown };
      reply = {
        id,
        ok: false,
        error: {
          name: err instanceof PipelineError ? 'PipelineError' : (e?.name ?? 'Error'),
          message: e?.message ?? String(err),
          ...(typeof e?.reason === 'string' ? { reason: e.reason } : {}),
          ...(err instanceof PipelineError ? { retryable: err.retryable } : {}),
        },
      };
    }
    parentPort!.postMessage(reply, transfer);
  });
}
