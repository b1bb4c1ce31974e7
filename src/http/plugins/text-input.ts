// The one check for the NUL character on every request part that can reach the database (see
// src/domain/text-input.ts), which also bounds JSON nesting: it runs before schema validation and before idempotency records the
// request, so no route answers 500 for it. Field paths follow the validator's form: `body/name`,
// `querystring/status`, `params/id`. Multipart parts are read by their routes and checked there.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findTextProblem, textRejected } from '../../domain/text-input.js';

export function registerTextInputGuard(app: FastifyInstance): void {
  // Callback-style (no promise per request): it runs on every request, the polled ones included.
  app.addHook('preValidation', (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const problem = findTextProblem(req.params, 'params') ?? findTextProblem(req.query, 'querystring') ?? (req.isMultipart() ? undefined : findTextProblem(req.body, 'body'));
    done(problem ? textRejected(problem) : undefined);
  });
}
