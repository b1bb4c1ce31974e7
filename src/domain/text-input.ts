// Text the service stores must be storable: PostgreSQL rejects the NUL character (U+0000) in text
// and in jsonb, so a request carrying one is answered 400 validation_failed naming the field,
// decided once for every JSON body, query string, path parameter and multipart text part instead
// of failing in the database as a 500. The same walk bounds nesting: no request of this API nests
// deeper than a few levels, and a body nested thousands deep would overflow recursive code later.
import { errors, type ServiceError } from './errors.js';

const NUL = '\u0000';
export const MAX_JSON_DEPTH = 32;
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

export interface TextProblem {
  path: string;
  message: string;
}

/** The first field holding NUL (in a string or an object key), or nesting beyond MAX_JSON_DEPTH. */
export function findTextProblem(value: unknown, path = ''): TextProblem | null {
  // Iterative, so the walk itself cannot overflow the stack.
  const stack: Array<[unknown, string, number]> = [[value, path, 0]];
  while (stack.length) {
    const [v, p, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes(NUL)) return { path: p || '/', message: NUL_MESSAGE };
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { path: p || '/', message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` };
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i];
      // A key with NUL is named without the character itself.
      if (k.includes(NUL)) return { path: `${p}/${k.replaceAll(NUL, '\\u0000')}`, message: NUL_MESSAGE };
      stack.push([x, `${p}/${k}`, depth + 1]);
    }
  }
  return null;
}

/** The first field holding NUL, or null (see findTextProblem). */
export function findNul(value: unknown, path = ''): string | null {
  const problem = findTextProblem(value, path);
  return problem?.message === NUL_MESSAGE ? problem.path : null;
}

/** The validation error for a problem; the value itself is never echoed. */
export function textRejected(problem: TextProblem): ServiceError {
  return errors.validation({ fields: [problem] }, problem.message === NUL_MESSAGE ? 'Text must not contain the NUL character (U+0000).' : 'The request body is nested too deeply.');
}

/** Throws the validation error when `value` (under the field name `path`) holds NUL or nests too deep. */
export function assertNoNul(value: unknown, path: string): void {
  const problem = findTextProblem(value, path);
  if (problem) throw textRejected(problem);
}
