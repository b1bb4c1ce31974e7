// Contacts (the service's own address book) and the link of a call to one of them.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { DateTime, Nullable, Uuid, errorResponses } from '../schemas.js';
import { CallDetailSchema } from './call-schemas.js';
import { callDetailOf } from '../../domain/calls.js';
import { contactOf, createContact, decodeContactCursor, deleteContact, getContact, linkCallContact, listContacts, replaceContact } from '../../domain/contacts.js';
import { ARRAY_LIST_DEFAULT_LIMIT, ARRAY_LIST_MAX_LIMIT } from '../../domain/array-list.js';
import { arrayPageQuery, arrayPageResponse, badCursor, sendArrayPage } from '../array-page.js';

const tags = ['Contacts'];

const ContactSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  phoneNumber: Nullable(Type.String()),
  email: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
});

const fieldsNote =
  'name is required and must not be blank. phoneNumber, email and notes are optional; null, an empty string or an omitted field leaves them empty. email must look like an address (local@domain.tld).';
const ContactBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  phoneNumber: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
  email: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
});
const IdParams = Type.Object({ id: Uuid });

export default async function contactRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.database.requestDb;

  app.get(
    '/api/contacts',
    {
      schema: {
        tags,
        summary: 'The caller\'s contacts, sorted by name (case-insensitive)',
        description: `A JSON array, as before; pages of at most \`limit\` contacts (default and maximum ${ARRAY_LIST_MAX_LIMIT}). When more follow, the response carries \`X-Next-Cursor\` and \`Link: <...>; rel="next"\`; pass the cursor back as \`cursor\`. Ties of the case-insensitive name are ordered by the exact name, then id. The cursor carries the last listed contact's name (it is sent only to its owner; the service never logs query strings).`,
        querystring: arrayPageQuery('contacts'),
        response: { 200: arrayPageResponse(Type.Array(ContactSchema)), ...errorResponses(400, 401) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const cursor = q.cursor !== undefined ? decodeContactCursor(q.cursor) : null;
      if (q.cursor !== undefined && !cursor) throw badCursor();
      const limit = q.limit ?? ARRAY_LIST_DEFAULT_LIMIT;
      return sendArrayPage(req, reply, await listContacts(db, req.user.id, { limit, cursor }), limit);
    },
  );

  app.get(
    '/api/contacts/:id',
    { schema: { tags, summary: 'One contact', params: IdParams, response: { 200: ContactSchema, ...errorResponses(400, 401, 404) } } },
    async (req) => contactOf(await getContact(db, req.user.id, req.params.id)),
  );

  app.post(
    '/api/contacts',
    {
      schema: { tags, summary: 'Create a contact', description: fieldsNote, body: ContactBody, response: { 201: ContactSchema, ...errorResponses(400, 401) } },
    },
    async (req, reply) => reply.status(201).send(contactOf(await createContact(db, req.user.id, req.body))),
  );

  app.put(
    '/api/contacts/:id',
    {
      schema: {
        tags,
        summary: 'Replace a contact',
        description: `Full replacement: an optional field that is omitted or null is cleared. ${fieldsNote}`,
        params: IdParams,
        body: ContactBody,
        response: { 200: ContactSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => contactOf(await replaceContact(db, req.user.id, req.params.id, req.body)),
  );

  app.delete(
    '/api/contacts/:id',
    {
      schema: {
        tags,
        summary: 'Delete a contact',
        description: 'Linked calls are kept; their contact link (serviceContactId) is cleared.',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (req, reply) => {
      await deleteContact(db, req.user.id, req.params.id);
      return reply.status(204).send(null);
    },
  );

  app.patch(
    '/api/calls/:callId/contact',
    {
      schema: {
        tags: ['Calls', ...tags],
        summary: 'Link a call to a contact, or unlink it with null',
        description:
          'Call and contact must both belong to the caller, otherwise 404 (call_not_found or contact_not_found). The legacy contactId/contactName captured at upload are not changed. The link is returned as serviceContactId.',
        params: Type.Object({ callId: Uuid }),
        body: Type.Object({ contactId: Nullable(Uuid) }),
        response: { 200: CallDetailSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const { contactId } = req.body;
      return callDetailOf(await linkCallContact(db, req.user.id, req.params.callId, contactId));
    },
  );
}
