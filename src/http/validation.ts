// Request validation: query strings, path parameters and headers arrive as text, so they are
// coerced to the schema's types; JSON bodies are not, so `{"title": 5}` is a 400, not "5".
import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function build(options: Options) {
  const ajv = new Ajv.default({ removeAdditional: false, useDefaults: true, allErrors: false, strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}

const forBodies = build({ coerceTypes: false });
const forText = build({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? forBodies : forText).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
