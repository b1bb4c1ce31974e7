// The routes of the running service as its OpenAPI document describes them, and a sampler that
// builds a minimal valid value from a JSON schema. The fuzz and authorization suites are generated
// from these, so a route added to the service is covered without touching them.

export interface OperationParam {
  in: 'path' | 'query' | 'header';
  name: string;
  required: boolean;
  schema: any;
}

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. /api/calls/{id} */
  path: string;
  params: OperationParam[];
  /** The JSON body schema, when the operation takes application/json. */
  jsonBody: any | null;
  multipart: boolean;
  /** Whether the document marks the operation as needing no credentials (health). */
  open: boolean;
}

export async function loadOpenApi(baseUrl: string): Promise<any> {
  const r = await fetch(`${baseUrl}/openapi.json`);
  if (r.status !== 200) throw new Error(`/openapi.json answered ${r.status}`);
  return r.json();
}

export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path: p,
        params: (op.parameters ?? []).map((x: any) => ({ in: x.in, name: x.name, required: !!x.required, schema: resolve(doc, x.schema ?? {}) })),
        jsonBody: content['application/json'] ? resolve(doc, content['application/json'].schema ?? {}) : null,
        multipart: !!content['multipart/form-data'],
        open: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return ops;
}

/** Follows a local $ref (`#/components/schemas/X` or a bare id the document registered). */
export function resolve(doc: any, schema: any): any {
  let s = schema;
  for (let i = 0; i < 10 && s && typeof s.$ref === 'string'; i++) {
    const ref: string = s.$ref;
    if (ref.startsWith('#/')) s = ref.slice(2).split('/').reduce((o: any, k) => o?.[k], doc);
    else s = doc.components?.schemas?.[ref.replace(/#$/, '')];
  }
  return s ?? {};
}

/** Fills a path template: `{name}` from `values`. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

const SAMPLE_UUID = '00000000-0000-4000-8000-000000000000';

/**
 * A minimal valid value of a JSON schema: required properties only (rules a handler checks beyond
 * the schema, such as an email's form, apply to optional fields), the first enum value.
 */
export function sample(doc: any, schemaIn: any, depth = 0): unknown {
  const schema = resolve(doc, schemaIn);
  if (depth > 8) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) {
      const first = schema[key].map((s: any) => resolve(doc, s)).find((s: any) => s.type !== 'null') ?? schema[key][0];
      return sample(doc, first, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: any) => sample(doc, s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [k, v] of Object.entries<any>(schema.properties ?? {})) if (required.has(k)) out[k] = sample(doc, v, depth + 1);
      return out;
    }
    case 'array': {
      const n = Math.max(1, schema.minItems ?? 1);
      return Array.from({ length: n }, () => sample(doc, schema.items ?? {}, depth + 1));
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string':
      switch (schema.format) {
        case 'uuid':
          return SAMPLE_UUID;
        case 'date':
          return '2026-12-01';
        case 'date-time':
          return '2026-12-01T10:00:00Z';
        case 'email':
          return 'someone@example.test';
        default:
          if (schema.pattern === '^\\d{4}-\\d{2}-\\d{2}$') return '2026-12-01';
          return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
      }
    default:
      return null;
  }
}
