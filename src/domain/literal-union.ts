// A TypeBox helper shared by the domain's and the routes' schemas.
import { Type, type SchemaOptions, type TLiteral, type TUnion } from '@sinclair/typebox';

/**
 * A union of string literals (the same anyOf schema as Type.Union of Type.Literal), typed as the
 * union of the values, so that routes typed through the TypeBox provider see e.g. CallStatus.
 */
export function LiteralUnion<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnion<[TLiteral<T[number]>]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<[TLiteral<T[number]>]>;
}
