// Property-based fuzzing of every route in the service's OpenAPI document with fast-check. Each
// case is one raw HTTP request (node:http, so the bytes, Content-Type and headers are exactly the
// generated ones): path ids, query strings, JSON bodies, multipart streams and headers drawn from
// hostile values (control and bidi characters, NUL, lone surrogates, huge and non-finite numbers,
// prototype keys, deep nesting, oversized and truncated bodies) mixed with valid ones so the
// handlers past validation are reached too. The property: the answer is never a 5xx, and an error
// answer is the spec's body {error: {code, message, details?}}.
import http from 'node:http';
import fc from 'fast-check';
import { operationsOf, sample, type Operation } from './openapi-routes.js';

export interface FuzzTarget {
  url: string;
  doc: any;
  /** Tokens to send: a regular user's, an admin's; the fuzzer also sends none and garbage. */
  tokens: string[];
  /** Ids of existing objects, used for path parameters some of the time. */
  ids: string[];
  /** A small valid audio file, so some uploads get past sniffing. */
  audio: Buffer;
}

export interface FuzzResult {
  cases: number;
  operations: number;
  statuses: Record<string, number>;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

const HOSTILE_TEXT = [
  '', ' ', '\u0000', 'a\u0000b', '\u202e\u202d', '\ud800', '\udfff', '💥🧨', 'Ω≈ç√', '\r\n', '\t', '\u0007',
  'a'.repeat(5000), '../../etc/passwd', "' OR 1=1 --", '<script>alert(1)</script>', '%00', '%zz', '${jndi:ldap://x}',
  'NaN', 'Infinity', '-0', '1e309', '9007199254740993', '-1', '0', 'null', 'true', '[]', '{}', '__proto__', 'constructor',
  '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
];

const text = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

const hugeNumber = fc.constantFrom(1e308, -1e308, 2 ** 64, -(2 ** 63), 2 ** 31, 1.5, -1, 0, Number.MAX_SAFE_INTEGER + 2, 5e-324);

const jsonLeaf = fc.oneof(text, hugeNumber, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, jsonLeaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'userId', 'status')), tie('value'), { maxKeys: 4 }),
})).value;

/** Percent-encodes the UTF-8 bytes of a string (lone surrogates become U+FFFD, as on the wire). */
function pctEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`)).join('');
}

/** Header values node:http will send: visible Latin-1 and tab. */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 }),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.constant(''),
);

function pathValue(ids: string[]) {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids).map((v) => encodeURIComponent(v)) },
    { weight: 2, arbitrary: fc.uuid().map((v) => v) },
    { weight: 3, arbitrary: text.map(pctEncode) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%c0%af', '%', '..', '.', '%2F', 'a%2Fb', `${'9'.repeat(40)}`, 'x'.repeat(1100)) },
  );
}

function queryString(op: Operation, doc: any) {
  const declared = op.params.filter((p) => p.in === 'query');
  const pair = fc.oneof(
    declared.length ? fc.tuple(fc.constantFrom(...declared.map((p) => p.name)), fc.oneof(text, hugeNumber.map(String), fc.constantFrom(...declared.map((p) => String(sample(doc, p.schema)))))) : fc.tuple(text, text),
    fc.tuple(text, text),
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 4, arbitrary: fc.array(pair, { maxLength: 5 }).map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${pctEncode(k)}=${pctEncode(v)}`).join('&')}` : '')) },
    { weight: 1, arbitrary: fc.constantFrom('?', '?&&=&', '?a[b][c]=1', '?ids=' + Array.from({ length: 150 }, (_, i) => i).join(','), '?%zz=%', '?limit=1e309&page=-1&size=99999999999') },
  );
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', '', 'application/json;;;', 'x/y; a="'];

function jsonBody(op: Operation, doc: any) {
  const valid = op.jsonBody ? sample(doc, op.jsonBody) : {};
  const mutated = fc.tuple(fc.option(fc.constantFrom(...Object.keys(op.jsonBody?.properties ?? { x: 1 }))), jsonValue).map(([k, v]) => {
    const copy = JSON.parse(JSON.stringify(valid ?? {}));
    if (copy && typeof copy === 'object') copy[k ?? 'extra'] = v;
    return JSON.stringify(copy);
  });
  const raw = fc.oneof(
    { weight: 2, arbitrary: fc.constant(JSON.stringify(valid)) },
    { weight: 5, arbitrary: mutated },
    { weight: 3, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 2, arbitrary: text },
    { weight: 1, arbitrary: fc.constantFrom('{"a":', '[', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '['.repeat(5000) + ']'.repeat(5000), '{"a":1e999999}', '"\\ud800"', '\ufeff{}') },
    { weight: 1, arbitrary: fc.constant(`{"title":"${'x'.repeat(1_100_000)}"}`) },
  ).map((s) => Buffer.from(s, 'utf8'));
  return fc.tuple(raw, fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...JSON_TYPES) })).map(([body, type]) => ({ body, type }));
}

function multipartBody(audio: Buffer) {
  const partBody = fc.oneof(
    fc.constant(audio),
    fc.constant(audio.subarray(0, 44)),
    fc.uint8Array({ maxLength: 600 }).map((u) => Buffer.from(u)),
    jsonValue.map((v) => Buffer.from(JSON.stringify(v) ?? '', 'utf8')),
    text.map((s) => Buffer.from(s, 'utf8')),
  );
  const part = fc.record({
    name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('file', 'metadata', 'title') }, { weight: 1, arbitrary: text }),
    filename: fc.option(fc.oneof(fc.constantFrom('a.wav', 'a.mp3', 'x.txt', ''), text)),
    type: fc.option(fc.constantFrom('audio/wav', 'application/json', 'text/plain; charset=utf-8', 'application/octet-stream', 'x')),
    body: partBody,
  });
  return fc
    .record({
      boundary: fc.oneof(fc.constantFrom('XyZ123', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'a'.repeat(70)), fc.stringMatching(/^[A-Za-z0-9'()+_,.\-]{1,70}$/)),
      declared: fc.oneof({ weight: 5, arbitrary: fc.constant('same') }, { weight: 1, arbitrary: fc.constantFrom('none', 'other', 'empty') }),
      parts: fc.array(part, { maxLength: 4 }),
      crlf: fc.boolean(),
      cutAt: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 3 }),
    })
    .map(({ boundary, declared, parts, crlf, cutAt }) => {
      const nl = crlf ? '\r\n' : '\n';
      const chunks: Buffer[] = [];
      for (const p of parts) {
        const disposition = `Content-Disposition: form-data; name="${p.name.replace(/["\r\n]/g, '_')}"${p.filename !== null ? `; filename="${p.filename.replace(/["\r\n]/g, '_')}"` : ''}`;
        chunks.push(Buffer.from(`--${boundary}${nl}${disposition}${nl}${p.type ? `Content-Type: ${p.type}${nl}` : ''}${nl}`, 'utf8'), p.body, Buffer.from(nl));
      }
      chunks.push(Buffer.from(`--${boundary}--${nl}`));
      let body = Buffer.concat(chunks);
      if (cutAt !== null) body = body.subarray(0, Math.floor(body.length * cutAt));
      const type = declared === 'same' ? `multipart/form-data; boundary=${boundary}` : declared === 'other' ? 'multipart/form-data; boundary=other' : declared === 'empty' ? 'multipart/form-data; boundary=' : 'multipart/form-data';
      return { body, type };
    });
}

function requestFor(op: Operation, target: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const params = fc.tuple(...names.map(() => pathValue(target.ids)));
  const body: fc.Arbitrary<{ body: Buffer; type: string } | null> = op.multipart
    ? multipartBody(target.audio)
    : fc.option(jsonBody(op, target.doc), { freq: op.jsonBody ? 8 : 3 }); // a body where none belongs, too
  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...target.tokens).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer x.y.z', 'Basic YTpi', `Bearer ${target.tokens[0]}x`, `bearer ${target.tokens[0]}`) },
  );
  const extraHeaders = fc.record(
    {
      'idempotency-key': headerValue,
      'x-request-id': headerValue,
      accept: fc.constantFrom('*/*', 'text/html', 'application/xml', ''),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
      'x-service-api-key': headerValue,
    },
    { requiredKeys: [] },
  );
  return fc.record({ params, query: queryString(op, target.doc), body, auth, extra: extraHeaders }).map(({ params, query, body, auth, extra }) => {
    const values = Object.fromEntries(names.map((n, i) => [n, params[i]]));
    const headers: Record<string, string> = { ...(extra as Record<string, string>) };
    if (auth) headers.authorization = auth;
    if (body) headers['content-type'] = body.type;
    // The values are already percent-encoded (or deliberately malformed): put them in as they are.
    const p = op.path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? '');
    return { method: op.method, path: `${p}${query}`, headers, body: body?.body ?? null };
  });
}

function send(url: string, r: FuzzRequest): Promise<{ status: number; contentType: string; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: r.method, path: r.path, headers: r.headers, agent: false, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 60 s')));
    // The server may answer (413, 400) and close before reading a large body: keep the answer.
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    if (r.body) req.end(r.body);
    else req.end();
  });
}

/** Why a response breaks the property, or null when it holds. */
export function violation(res: { status: number; contentType: string; text: string }): string | null {
  if (res.status >= 500 || res.status < 100) return `status ${res.status}`;
  if (res.status < 400) return null;
  if (!/^application\/json/.test(res.contentType)) return `error answered as ${res.contentType}`;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return 'error body is not JSON';
  }
  if (!body || typeof body !== 'object' || Object.keys(body).join() !== 'error') return 'error body is not {error}';
  const e = body.error;
  if (typeof e?.code !== 'string' || typeof e?.message !== 'string') return 'error without code and message';
  const extra = Object.keys(e).filter((k) => !['code', 'message', 'details'].includes(k));
  if (extra.length) return `error has extra fields ${extra.join()}`;
  return null;
}

/** Runs `runs` cases per operation with one seed; throws with the first counterexample. */
export async function fuzzOperations(target: FuzzTarget, opts: { seed: number; runs: number; only?: (op: Operation) => boolean }): Promise<FuzzResult> {
  const ops = operationsOf(target.doc).filter((op) => opts.only?.(op) ?? true);
  const statuses: Record<string, number> = {};
  let cases = 0;
  for (const [i, op] of ops.entries()) {
    const seed = opts.seed + i;
    const details = await fc.check(
      fc.asyncProperty(requestFor(op, target), async (r) => {
        cases++;
        let res: { status: number; contentType: string; text: string };
        try {
          res = await send(target.url, r);
        } catch (err) {
          throw new Error(`no answer: ${(err as Error).message}`);
        }
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const why = violation(res);
        if (why) throw new Error(`${why}: ${res.text.slice(0, 300)}`);
      }),
      { seed, numRuns: opts.runs, endOnFailure: true },
    );
    if (details.failed) {
      // A short counterexample: the full one can be megabytes of generated body.
      const r = details.counterexample?.[0] as FuzzRequest | undefined;
      const body = r?.body ? `${r.body.length} bytes: ${JSON.stringify(r.body.subarray(0, 200).toString('latin1'))}` : 'none';
      throw new Error(
        `${op.method} ${op.path} failed (seed ${seed}, case ${details.numRuns}): ${(details.errorInstance as Error | undefined)?.message}\n` +
          `request: ${r?.method} ${r?.path.slice(0, 300)}\nheaders: ${JSON.stringify({ ...r?.headers, authorization: r?.headers.authorization?.slice(0, 20) })}\nbody: ${body}`,
      );
    }
  }
  return { cases, operations: ops.length, statuses };
}
