// Validation of analyzer output against the Analysis schema (schemaVersion 3) before it is
// grounded, finalized and stored. Errors carry JSON pointers and messages only, never the
// offending values, because analysis values are personal data and the errors end up in logs and
// in repair prompts.
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Analysis } from '../../domain/analysis.js';

// Compiled once: the checker is pure and the schema is static.
const checker = TypeCompiler.Compile(Analysis);

/** Enough for a repair prompt; a model that gets more wrong than this needs a full retry anyway. */
const MAX_ERRORS = 40;

type SchemaLike = { anyOf?: SchemaLike[]; const?: unknown; type?: string; minimum?: number; maximum?: number };

/**
 * TypeBox reports a failed union as "Expected union value", which neither a developer nor a model
 * can act on; for unions the allowed alternatives (schema constants, never input values) are
 * spelled out instead.
 */
function describe(schema: unknown): string | null {
  const s = schema as SchemaLike;
  if (!Array.isArray(s?.anyOf)) return null;
  const alts = s.anyOf.map((a) => {
    if (a.const !== undefined) return JSON.stringify(a.const);
    if (a.type === 'number' || a.type === 'integer') {
      const range = a.minimum !== undefined && a.maximum !== undefined ? ` in [${a.minimum}, ${a.maximum}]` : '';
      return `${a.type}${range}`;
    }
    return a.type ?? 'value';
  });
  return `Expected one of: ${alts.join(', ')}`;
}

export type ValidationResult = { ok: true; value: Analysis } | { ok: false; errors: string[] };

export function validateAnalysis(a: unknown): ValidationResult {
  if (checker.Check(a)) return { ok: true, value: a };
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const e of checker.Errors(a)) {
    const line = `${e.path === '' ? '/' : e.path}: ${describe(e.schema) ?? e.message}`;
    // Union members each report their own mismatch at the same path; one line per path+message is
    // what a reader (human or model) can act on.
    if (seen.has(line)) continue;
    seen.add(line);
    errors.push(line);
    if (errors.length >= MAX_ERRORS) break;
  }
  if (errors.length === 0) errors.push('/: does not match the Analysis schema');
  return { ok: false, errors };
}
