// The embedded analyzer run in worker threads, so that its synchronous, CPU-bound work (about 12 s
// on a 3-hour transcript) never blocks the event loop that serves requests and runs jobs (issue 22).
// The service's process only copies the transcript to a thread and the analysis back.
//
// Threads start on first use (the embedded analyzer's modules load once per thread), take one
// analysis at a time, and end after a minute without work; at most `size` run at once, further
// analyses wait in order. An aborted analysis ends its thread (a synchronous computation cannot be
// interrupted otherwise) and a new one starts for the next.
//
// The project runs TypeScript through tsx: a thread started on a .ts file would not have tsx's
// loader, so the thread's entry is imported through tsx's API (tsImport); compiled to .js it is
// started directly.
import { Worker } from 'node:worker_threads';
import type { Analysis, AnalysisContext } from '../../domain/analysis.js';
import type { Transcript } from '../../domain/transcript.js';
import { PipelineError, type Analyzer, type PipelineFailureReason } from '../types.js';
import { EMBEDDED_MODEL } from './embedded/index.js';

export interface ThreadRequest {
  id: number;
  transcript: Transcript;
  context: AnalysisContext;
}

export type ThreadReply =
  | { id: number; ok: true; analysis: Analysis }
  | { id: number; ok: false; error: { message: string; reason?: PipelineFailureReason; retryable?: boolean } };

interface Task {
  id: number;
  transcript: Transcript;
  context: AnalysisContext;
  signal?: AbortSignal;
  resolve(a: Analysis): void;
  reject(e: unknown): void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  idleTimer: NodeJS.Timeout | null;
}

const IDLE_MS = 60_000;

function startWorker(): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const entry = new URL('./embedded/thread.ts', here).href;
    const api = import.meta.resolve('tsx/esm/api');
    const code = `import(${JSON.stringify(api)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
    return new Worker(code, { eval: true, execArgv: [] });
  }
  return new Worker(new URL('./embedded/thread.js', here), { execArgv: [] });
}

export class ThreadedAnalyzer implements Analyzer {
  readonly provider = 'embedded';
  readonly model = EMBEDDED_MODEL;
  private readonly slots = new Set<Slot>();
  private readonly waiting: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size = 1) {}

  analyze(transcript: Transcript, context: AnalysisContext, signal?: AbortSignal): Promise<Analysis> {
    return new Promise<Analysis>((resolve, reject) => {
      if (this.closed) return reject(new PipelineError('internal_error', 'the analyzer is closed', true));
      if (signal?.aborted) return reject(signal.reason);
      // The listener goes with the task: a long-lived signal (the queue's shutdown signal) would
      // otherwise gather one per analysis.
      const onAbort = () => this.abort(task);
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const task: Task = {
        id: this.nextId++,
        transcript,
        context,
        signal,
        resolve: (a) => (settle(), resolve(a)),
        reject: (e) => (settle(), reject(e)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(task);
      this.dispatch();
    });
  }

  /** Ends every thread; analyses running or waiting fail as retryable. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.waiting.splice(0)) t.reject(new PipelineError('internal_error', 'the analyzer was closed', true));
    await Promise.all([...this.slots].map((s) => this.retire(s, new PipelineError('internal_error', 'the analyzer was closed', true))));
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
      const req: ThreadRequest = { id: task.id, transcript: task.transcript, context: task.context };
      slot.worker.postMessage(req);
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(), task: null, idleTimer: null };
    this.slots.add(slot);
    slot.worker.on('message', (reply: ThreadReply) => {
      const task = slot.task;
      if (!task || task.id !== reply.id) return;
      slot.task = null;
      if (reply.ok) task.resolve(reply.analysis);
      else task.reject(reply.error.reason ? new PipelineError(reply.error.reason, reply.error.message, reply.error.retryable ?? false) : new Error(reply.error.message));
      this.idle(slot);
      this.dispatch();
    });
    // A thread that dies (out of memory, a crash in the analyzer) fails its analysis, which a
    // retry may repeat; the next analysis gets a new thread.
    const lost = (why: string) => {
      if (!this.slots.delete(slot)) return;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.task?.reject(new PipelineError('analysis_failed', `the analysis thread ${why}`, true));
      slot.task = null;
      this.dispatch();
    };
    slot.worker.on('error', () => lost('failed'));
    slot.worker.on('exit', (code) => lost(`exited with code ${code}`));
    return slot;
  }

  private idle(slot: Slot): void {
    // An idle thread does not keep the process alive, and ends after a while without work.
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => void this.retire(slot, null), IDLE_MS);
    slot.idleTimer.unref();
  }

  private async retire(slot: Slot, reason: unknown): Promise<void> {
    if (!this.slots.delete(slot)) return;
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    const task = slot.task;
    slot.task = null;
    if (task && reason !== null) task.reject(reason);
    await slot.worker.terminate().catch(() => undefined);
    this.dispatch();
  }

  private abort(task: Task): void {
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
