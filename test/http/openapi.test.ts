// The OpenAPI document and the API reference page: every endpoint of the specification's Endpoints
// section is documented with its method, request schema (where it takes a body or query) and
// response schema.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dbModes, startTestService, type TestService } from '../support/service.js';

type Body = 'json' | 'multipart' | null;
interface Endpoint {
  method: string;
  path: string;
  success: number;
  body: Body;
  query?: string[];
}

/** The Endpoints section of call-analysis-service.md, by hand. */
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: '/api/health', success: 200, body: null },
  // Calls
  { method: 'POST', path: '/api/calls/analyze', success: 202, body: 'multipart' },
  { method: 'GET', path: '/api/calls', success: 200, body: null, query: ['limit', 'cursor', 'status'] },
  { method: 'GET', path: '/api/calls/status', success: 200, body: null, query: ['ids'] },
  { method: 'GET', path: '/api/calls/{id}', success: 200, body: null },
  { method: 'PATCH', path: '/api/calls/{id}', success: 200, body: 'json' },
  { method: 'PATCH', path: '/api/calls/{callId}/contact', success: 200, body: 'json' },
  { method: 'POST', path: '/api/calls/{id}/reanalyze', success: 200, body: null },
  { method: 'GET', path: '/api/calls/{id}/transcript', success: 200, body: null },
  { method: 'GET', path: '/api/calls/{id}/analysis', success: 200, body: null },
  { method: 'DELETE', path: '/api/calls/{id}', success: 204, body: null },
  { method: 'DELETE', path: '/api/calls', success: 200, body: 'json' },
  // Action items
  { method: 'GET', path: '/api/actions', success: 200, body: null, query: ['limit', 'cursor'] },
  { method: 'GET', path: '/api/calls/{callId}/action-items', success: 200, body: null },
  { method: 'POST', path: '/api/calls/{callId}/action-items', success: 201, body: 'json' },
  { method: 'PUT', path: '/api/action-items/{id}', success: 200, body: 'json' },
  { method: 'DELETE', path: '/api/action-items/{id}', success: 204, body: null },
  { method: 'PATCH', path: '/api/actions/{id}', success: 200, body: 'json' },
  // Contacts
  { method: 'GET', path: '/api/contacts', success: 200, body: null, query: ['limit', 'cursor'] },
  { method: 'GET', path: '/api/contacts/{id}', success: 200, body: null },
  { method: 'POST', path: '/api/contacts', success: 201, body: 'json' },
  { method: 'PUT', path: '/api/contacts/{id}', success: 200, body: 'json' },
  { method: 'DELETE', path: '/api/contacts/{id}', success: 204, body: null },
  // Users
  { method: 'GET', path: '/api/users/me', success: 200, body: null },
  { method: 'PATCH', path: '/api/users/me', success: 200, body: 'json' },
  { method: 'PATCH', path: '/api/users/me/consent', success: 200, body: 'json' },
  { method: 'DELETE', path: '/api/users/me', success: 204, body: null },
  { method: 'GET', path: '/api/users/me/limits', success: 200, body: null },
  { method: 'GET', path: '/api/users/me/stats', success: 200, body: null },
  // Voice profile
  { method: 'POST', path: '/api/users/me/voice-profile', success: 201, body: 'multipart' },
  { method: 'GET', path: '/api/users/me/voice-profile/status', success: 200, body: null },
  { method: 'DELETE', path: '/api/users/me/voice-profile', success: 204, body: null },
  // Analytics
  { method: 'GET', path: '/api/analytics/vibe', success: 200, body: null, query: ['days'] },
  // Plans and feature flags
  { method: 'GET', path: '/api/plans', success: 200, body: null },
  { method: 'GET', path: '/api/feature-flags', success: 200, body: null },
  // Admin
  { method: 'GET', path: '/api/admin/feature-flags', success: 200, body: null },
  { method: 'PATCH', path: '/api/admin/feature-flags/{key}', success: 200, body: 'json' },
  { method: 'GET', path: '/api/admin/users', success: 200, body: null, query: ['page', 'size', 'search'] },
  { method: 'POST', path: '/api/admin/users/{userId}/grant-credits', success: 200, body: 'json' },
  { method: 'PATCH', path: '/api/admin/users/{userId}/status', success: 200, body: 'json' },
  { method: 'PATCH', path: '/api/admin/users/{userId}/plan', success: 200, body: 'json' },
  { method: 'GET', path: '/api/admin/audit-log', success: 200, body: null, query: ['page', 'size'] },
];

/** Path parameter names are the implementation's choice ({id} or {callId}); compare the shape. */
const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');

interface Operation {
  parameters?: Array<{ in: string; name: string; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  security?: unknown[];
}

function isSchema(s: unknown): boolean {
  return !!s && typeof s === 'object' && Object.keys(s as object).length > 0;
}

describe('OpenAPI document and API reference', () => {
  let t: TestService;
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> }; security?: unknown[] };
  const operation = (e: Endpoint): Operation | undefined => {
    const path = Object.keys(doc.paths).find((p) => shape(p) === shape(e.path) && doc.paths[p][e.method.toLowerCase()]);
    return path ? doc.paths[path][e.method.toLowerCase()] : undefined;
  };

  before(async () => {
    t = await startTestService({ db: (await dbModes()).includes('external') ? 'external' : 'embedded' });
    const r = await t.request('GET', '/openapi.json');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    doc = r.body;
  });

  after(async () => {
    await t?.stop();
  });

  test('it is OpenAPI 3.1 with the bearer security scheme', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.ok(doc.paths && typeof doc.paths === 'object');
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  });

  test('every endpoint of the specification is documented with its method', () => {
    const missing = ENDPOINTS.filter((e) => !operation(e)).map((e) => `${e.method} ${e.path}`);
    assert.deepEqual(missing, []);
  });

  test('every documented endpoint has a response schema for its success status', () => {
    const problems: string[] = [];
    for (const e of ENDPOINTS) {
      const op = operation(e);
      if (!op) continue;
      const res = op.responses?.[String(e.success)];
      if (!res) {
        problems.push(`${e.method} ${e.path}: no ${e.success} response (has ${Object.keys(op.responses ?? {}).join(', ')})`);
        continue;
      }
      if (e.success === 204) continue;
      const json = res.content?.['application/json'];
      if (!isSchema(json?.schema)) problems.push(`${e.method} ${e.path}: ${e.success} has no JSON schema`);
    }
    assert.deepEqual(problems, []);
  });

  test('every endpoint that takes a body or query documents it', () => {
    const problems: string[] = [];
    for (const e of ENDPOINTS) {
      const op = operation(e);
      if (!op) continue;
      if (e.body === 'json' && !isSchema(op.requestBody?.content?.['application/json']?.schema)) problems.push(`${e.method} ${e.path}: no JSON request body schema`);
      const query = new Set((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
      for (const q of e.query ?? []) if (!query.has(q)) problems.push(`${e.method} ${e.path}: query parameter ${q} not documented`);
      for (const [, name] of e.path.matchAll(/\{([^}]+)\}/g)) {
        const params = (op.parameters ?? []).filter((p) => p.in === 'path');
        if (params.length < [...e.path.matchAll(/\{/g)].length) problems.push(`${e.method} ${e.path}: path parameter ${name} not documented`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('the array lists document paging: limit 1-1000, cursor, a bare array body, X-Next-Cursor and Link headers', () => {
    for (const path of ['/api/contacts', '/api/actions']) {
      const op = operation({ method: 'GET', path, success: 200, body: null })!;
      const limit = op.parameters?.find((p) => p.in === 'query' && p.name === 'limit')?.schema as { minimum?: number; maximum?: number; default?: number };
      assert.deepEqual([limit.minimum, limit.maximum, limit.default], [1, 1000, 1000], path);
      const ok = op.responses?.['200'] as { headers?: Record<string, unknown>; content?: Record<string, { schema?: { type?: string } }> };
      assert.equal(ok.content?.['application/json']?.schema?.type, 'array', `${path}: the body stays an array`);
      assert.deepEqual(Object.keys(ok.headers ?? {}).sort(), ['Link', 'X-Next-Cursor'], path);
      assert.ok(op.responses?.['400'], `${path}: 400 for a forged cursor`);
    }
  });

  // Known gap (routes/upload.ts, routes/voice-profile.ts): the multipart parts are described in prose only.
  test('the multipart uploads document their form parts', () => {
    const problems: string[] = [];
    for (const e of ENDPOINTS.filter((x) => x.body === 'multipart')) {
      const op = operation(e);
      const schema = op?.requestBody?.content?.['multipart/form-data']?.schema as { properties?: Record<string, unknown> } | undefined;
      if (!isSchema(schema) || !schema?.properties?.file) problems.push(`${e.method} ${e.path}: no multipart request body schema with a file part`);
    }
    assert.deepEqual(problems, []);
  });

  test('errors use the shared error body; health needs no authentication', () => {
    const health = operation(ENDPOINTS[0])!;
    assert.deepEqual(health.security, []);
    assert.ok(health.responses?.['503'], 'health documents 503');
    const me = operation({ method: 'GET', path: '/api/users/me', success: 200, body: null })!;
    const unauthorized = JSON.stringify(me.responses?.['401'] ?? {});
    assert.match(unauthorized, /ErrorBody|"error"/);
    assert.equal(operation({ method: 'GET', path: '/openapi.json', success: 200, body: null }), undefined, 'the document does not list itself');
  });

  test('GET /docs answers an HTML page', async () => {
    const r = await t.request('GET', '/docs');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(r.text, /<html/i);
    assert.match(r.text, /openapi\.json/);
  });
});
