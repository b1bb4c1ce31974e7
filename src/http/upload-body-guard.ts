// Time limits on an upload's body: an idle limit (no byte for so long) and a total limit (the
// whole body within so long). A client that opens an upload and then sends nothing, or a trickle,
// would otherwise hold its socket, its blob-store stream and its upload slot for ever (Node's own
// request timeout is a backstop set a little later, see server.ts).
//
// When a limit is reached the request stream is failed with 408 `request_timeout`: the multipart
// parser passes the error to the part being stored (its partial file or object is removed) and
// to the handler, whose answer then closes the connection. Should no answer follow, the socket is
// destroyed a few seconds later.
//
// Progress is read from the socket's byte count rather than from 'data' events: a 'data' listener
// would switch the request into flowing mode before the multipart parser is attached, and bytes
// would be lost.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, ServiceError } from '../domain/errors.js';

export interface UploadBodyGuard {
  /** Set once a limit was reached. */
  readonly timedOut: boolean;
  /** Stops the timers; call when the body has been read (or the request failed otherwise). */
  dispose(): void;
}

const ANSWER_GRACE_MS = 5000;

export function guardUploadBody(req: FastifyRequest, reply: FastifyReply, limits: { idleSeconds: number; totalSeconds: number }): UploadBodyGuard {
  const raw = req.raw;
  const started = Date.now();
  let timedOut = false;
  let lastBytes = raw.socket?.bytesRead ?? 0;
  let lastProgress = started;
  const fail = (limit: 'idle' | 'total', seconds: number) => {
    if (timedOut || raw.readableEnded || raw.destroyed) return;
    timedOut = true;
    dispose();
    // The answer closes the connection: the rest of the body is never read.
    reply.header('connection', 'close');
    raw.emit('error', new ServiceError(ErrorCode.RequestTimeout, { limit, timeoutSeconds: seconds }));
    setTimeout(() => {
      if (!reply.sent) raw.destroy();
    }, ANSWER_GRACE_MS).unref();
  };
  const tick = setInterval(() => {
    const now = Date.now();
    const bytes = raw.socket?.bytesRead ?? lastBytes;
    // A stream paused by our own back-pressure (the blob store is slower than the client) is
    // not an idle client.
    if (bytes !== lastBytes || raw.readableFlowing === false) {
      lastBytes = bytes;
      lastProgress = now;
    }
    if (now - started >= limits.totalSeconds * 1000) fail('total', limits.totalSeconds);
    else if (now - lastProgress >= limits.idleSeconds * 1000) fail('idle', limits.idleSeconds);
  }, Math.min(1000, Math.max(100, (limits.idleSeconds * 1000) / 4)));
  tick.unref();
  // The failure is delivered through 'error'; this listener keeps it from being an uncaught
  // exception when the multipart parser is not listening yet (or any more).
  const onError = () => undefined;
  raw.on('error', onError);
  function dispose() {
    clearInterval(tick);
  }
  return {
    get timedOut() {
      return timedOut;
    },
    dispose,
  };
}
