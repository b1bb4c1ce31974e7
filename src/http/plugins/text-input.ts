// The one check for the NUL character on every request part that can reach the database (see
// src/domain/text-input.ts), which also bounds JSON nesting: it runs before schema validation and before idempotency records the
// request, so no route answers 500 for it. Field paths follow the validator's form: `body/name`,
// `querystring/status`, `params/id`. Multipart parts are read by their routes and checked there.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findTextProblem, textRejected } from '../../domain/text-input.js';

export function registerTextInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req: FastifyRequest) => {
    for (const [part, value] of [
      ['params', req.params],
      ['querystring', req.query],
      ['body', req.isMultipart() ? undefined : req.body],
    ] as const) {
      const problem = findTextProblem(value, part);
      if (problem) throw textRejected(problem);
    }
  });
}
