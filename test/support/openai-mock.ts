// A mock of the OpenAI API that checks every request and every canned response against the
// provider's published OpenAPI description (test/fixtures/openai-openapi-excerpt.json) with
// openapi-backend, a schema-validating mock server library: a request the adapter builds wrong, or
// a response the test scripts wrong, is recorded as a violation instead of being trusted.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend, type Context } from 'openapi-backend';

export type MockReply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; raw: string; headers?: Record<string, string> }
  | 'hang';

const definition = JSON.parse(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/openai-openapi-excerpt.json'), 'utf8'));

export class OpenAiMock {
  readonly requestViolations: string[] = [];
  readonly responseViolations: string[] = [];
  readonly seen: Array<{ operationId: string; body: any; authorization: string | undefined }> = [];
  /** Replies served in order; the last one repeats. */
  replies: MockReply[] = [];
  baseUrl = '';
  private server!: http.Server;
  private api!: OpenAPIBackend;

  static async start(): Promise<OpenAiMock> {
    const m = new OpenAiMock();
    // The OpenAPI `binary` format is a file part; ajv has no checker for it.
    m.api = new OpenAPIBackend({ definition, quick: false, validate: true, ajvOpts: { strict: false }, customizeAjv: (ajv) => ajv.addFormat('binary', true) });
    m.api.register({
      createTranscription: (c: Context, res: http.ServerResponse) => m.answer('createTranscription', c.request.requestBody, c.request.headers.authorization as string | undefined, res),
      createChatCompletion: (c: Context, res: http.ServerResponse) => m.answer('createChatCompletion', c.request.requestBody, c.request.headers.authorization as string | undefined, res),
      validationFail: (c: Context, res: http.ServerResponse) => {
        m.requestViolations.push(`${c.operation?.operationId}: ${JSON.stringify(c.validation.errors)}`);
        m.send(res, { status: 400, json: { error: { message: 'invalid request', type: 'invalid_request_error', param: null, code: null } } }, null);
      },
      notFound: (c: Context, res: http.ServerResponse) => {
        m.requestViolations.push(`no such operation: ${c.request.method} ${c.request.path}`);
        m.send(res, { status: 404, json: { error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } } }, null);
      },
    });
    await m.api.init();
    m.server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks);
      const type = String(req.headers['content-type'] ?? '');
      let body: unknown = raw.toString('utf8');
      if (type.startsWith('application/json')) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          /* left as text: validation will say so */
        }
      } else if (type.startsWith('multipart/form-data')) {
        // Parsed with the platform's own multipart parser, as a real server would.
        const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
        const fields: Record<string, unknown> = {};
        for (const [k, v] of form.entries()) {
          const value = typeof v === 'string' ? v : `<file ${v.name} ${v.size} bytes>`;
          if (k.endsWith('[]')) ((fields[k] ??= []) as unknown[]).push(value);
          else fields[k] = value;
        }
        body = fields;
      }
      const url = new URL(req.url ?? '/', 'http://mock');
      await m.api.handleRequest({ method: req.method ?? 'GET', path: url.pathname.replace(/^\/v1/, ''), headers: req.headers as Record<string, string>, query: url.search.slice(1), body }, res);
    });
    await new Promise<void>((r) => m.server.listen(0, '127.0.0.1', r));
    m.baseUrl = `http://127.0.0.1:${(m.server.address() as AddressInfo).port}`;
    return m;
  }

  private answer(operationId: string, body: unknown, authorization: string | undefined, res: http.ServerResponse): void {
    this.seen.push({ operationId, body, authorization });
    const reply = this.replies.length > 1 ? this.replies.shift()! : this.replies[0];
    if (!reply) throw new Error('no reply scripted');
    if (reply === 'hang') return;
    this.send(res, reply, operationId);
  }

  private send(res: http.ServerResponse, reply: Exclude<MockReply, 'hang'>, operationId: string | null): void {
    if ('json' in reply && operationId) {
      const check = this.api.validateResponse(reply.json, operationId, reply.status);
      if (!check.valid) this.responseViolations.push(`${operationId} ${reply.status}: ${JSON.stringify(check.errors)}`);
    }
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end('json' in reply ? JSON.stringify(reply.json) : reply.raw);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
