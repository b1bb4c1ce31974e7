// Text the service stores must be storable: PostgreSQL rejects the NUL character (U+0000) in text
// and in jsonb, so a request carrying one is answered 400 validation_failed naming the field,
// decided once for every JSON body, query string, path parameter and multipart text part instead
// of failing in the database as a 500.
import { errors, type ServiceError } from './errors.js';

const NUL = '\u0000';

/** The JSON-pointer-like path of the first string or object key holding NUL, or null. */
export function findNul(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path || '/' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}/${i}`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // A key with NUL is named without the character itself.
      if (k.includes(NUL)) return `${path}/${k.replaceAll(NUL, '\\u0000')}`;
      const found = findNul(v, `${path}/${k}`);
      if (found) return found;
    }
  }
  return null;
}

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** The validation error for a NUL at `path`; the value itself is never echoed. */
export function nulRejected(path: string): ServiceError {
  return errors.validation({ fields: [{ path, message: NUL_MESSAGE }] }, 'Text must not contain the NUL character (U+0000).');
}

/** Throws the validation error when `value` (under the field name `path`) holds NUL anywhere. */
export function assertNoNul(value: unknown, path: string): void {
  const found = findNul(value, path);
  if (found) throw nulRejected(found);
}
