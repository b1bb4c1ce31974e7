// Query parameters and response headers of the two array lists (GET /api/contacts, GET /api/actions;
// src/domain/array-list.ts). The body stays the bare array the specification defines; the next
// page is announced in headers, as `X-Next-Cursor: <cursor>` and as an RFC 8288
// `Link: </path?limit=N&cursor=...>; rel="next"`, both absent on the last page.
import { Type, type TArray, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../domain/errors.js';
import { ARRAY_LIST_DEFAULT_LIMIT, ARRAY_LIST_MAX_LIMIT, type ArrayPage } from '../domain/array-list.js';

export const NEXT_CURSOR_HEADER = 'x-next-cursor';

export function arrayPageQuery(what: string) {
  return Type.Object({
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: ARRAY_LIST_MAX_LIMIT,
        default: ARRAY_LIST_DEFAULT_LIMIT,
        description: `At most this many ${what} (default and maximum ${ARRAY_LIST_MAX_LIMIT}).`,
      }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 4096, description: 'The X-Next-Cursor of the previous page, unchanged. Anything else answers 400 validation_failed.' })),
  });
}

/** The 200 response: the array with the two paging headers documented. */
export function arrayPageResponse<T extends TSchema>(items: TArray<T>): TArray<T> {
  return {
    ...items,
    headers: {
      'X-Next-Cursor': { type: 'string', description: 'Present when more items follow: pass it as `cursor` to get the next page.' },
      Link: { type: 'string', description: 'Present when more items follow: `<path?limit=N&cursor=...>; rel="next"` (RFC 8288), the same next page as a URL.' },
    },
  } as TArray<T>;
}

export function badCursor() {
  return errors.validation({ fields: [{ path: '/querystring/cursor', message: 'is not a cursor of this list' }] });
}

/** Sets the next-page headers (when more follow) and returns the body: the page's items. */
export function sendArrayPage<T>(req: FastifyRequest, reply: FastifyReply, page: ArrayPage<T>, limit: number): T[] {
  if (page.nextCursor !== null) {
    // base64url needs no escaping in a URL or a header.
    const path = req.url.split('?')[0];
    reply.header(NEXT_CURSOR_HEADER, page.nextCursor);
    reply.header('link', `<${path}?limit=${limit}&cursor=${page.nextCursor}>; rel="next"`);
  }
  return page.items;
}
