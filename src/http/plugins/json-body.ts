// JSON bodies as clients send them. An empty body with a JSON content type is no body: clients that
// put `Content-Type: application/json` on every request (a default header or an interceptor, common
// in OkHttp, Retrofit, Ktor and fetch wrappers) send it with DELETE and body-less POSTs as well, and
// Fastify's own parser answers those with 400. A route that needs a body still gets its 400 from
// schema validation. Non-empty bodies go through Fastify's default parser unchanged (including its
// prototype-poisoning protection).
import type { FastifyInstance } from 'fastify';

export function registerJsonBodyParser(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.length === 0 || text.trim().length === 0) return done(null, undefined);
    parseJson(req, text, done);
  });
}
