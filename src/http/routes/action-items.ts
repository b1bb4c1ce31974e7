// Action items: the caller's list, one call's list, manual creation, full replacement, status
// changes and deletion. A foreign item or call answers the same 404 as a missing one.
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { errors } from '../../domain/errors.js';
import { DateOnly, DateTime, Nullable, Uuid, errorResponses, LiteralUnion } from '../schemas.js';
import {
  ACTION_ITEM_STATUSES,
  PRIORITIES,
  actionItemOf,
  createManual,
  deleteActionItem,
  listForCall,
  MAX_MANUAL_ITEMS_PER_CALL,
  replaceActionItem,
  setActionItemStatus,
} from '../../domain/action-items.js';
import { INTENTS } from '../../domain/analysis.js';
import { decodeActionItemCursor, listActionItemsPage } from '../../domain/action-item-list.js';
import { ARRAY_LIST_DEFAULT_LIMIT, ARRAY_LIST_MAX_LIMIT } from '../../domain/array-list.js';
import { arrayPageQuery, arrayPageResponse, badCursor, sendArrayPage } from '../array-page.js';

const tags = ['Action items'];

const StatusSchema = LiteralUnion(
  ACTION_ITEM_STATUSES,
  { description: 'OPEN, IN_PROGRESS, DONE or DISMISSED. The legacy values PENDING and COMPLETED are rejected with 400 validation_failed.' },
);
const PrioritySchema = LiteralUnion(PRIORITIES);
const Title = Type.String({ minLength: 1, maxLength: 500 });
const Description = Type.String({ maxLength: 5000 });
const DueDate = Type.String({ ...DateOnly, description: 'YYYY-MM-DD; must be a real calendar date.' });

export const ActionItemSchema = Type.Object(
  {
    id: Uuid,
    callRecordId: Uuid,
    title: Type.String(),
    description: Nullable(Type.String()),
    dueDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
    status: StatusSchema,
    sourceText: Nullable(
      Type.String({
        description:
          'Forensic payload of an AI-extracted item, as JSON text: {"v":1,"priority":"low"|"medium"|"high"|null,"sourceSegmentIds":[...],"excerpt":string|null}, the excerpt being the cited transcript segments at analysis time ("[MM:SS] Speaker: text", joined by " / ", at most 500 characters). Null on MANUAL items.',
      }),
    ),
    createdAt: DateTime,
    updatedAt: DateTime,
    ownerSpeakerId: Nullable(Type.String()),
    ownerSpeakerLabel: Nullable(Type.String()),
    ownerDisplayName: Nullable(Type.String()),
    ownerRole: Nullable(Type.String({ description: 'USER, CONTACT or UNKNOWN' })),
    sourceSegmentIds: Type.Array(Type.String()),
    intent: Nullable(Type.String({ description: `One of ${INTENTS.join(', ')}; null on legacy and MANUAL items.` })),
    intentMetadata: Nullable(Type.Object({}, { additionalProperties: true })),
    priority: Nullable(PrioritySchema),
    source: Nullable(Type.Union([Type.Literal('AI'), Type.Literal('MANUAL')])),
  },
  { description: 'A persisted action item. completedAt is recorded server-side when the status becomes DONE and is not part of the response.' },
);

const ItemParams = Type.Object({ id: Uuid });
const CallParams = Type.Object({ callId: Uuid });

export default async function actionItemRoutes(scope: FastifyInstance, ctx: AppContext) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const db = ctx.database.requestDb;
  const Item = ActionItemSchema;

  app.get(
    '/api/actions',
    {
      schema: {
        tags,
        summary: 'All of the caller\'s action items, newest first',
        description: `Items created together (one analysis) keep the analysis order among themselves, then id. A JSON array, as before; pages of at most \`limit\` items (default and maximum ${ARRAY_LIST_MAX_LIMIT}). When more follow, the response carries \`X-Next-Cursor\` and \`Link: <...>; rel="next"\`; pass the cursor back as \`cursor\`. Paging is by keyset, so an item created or deleted between pages neither repeats nor hides another.`,
        querystring: arrayPageQuery('action items'),
        response: { 200: arrayPageResponse(Type.Array(Item)), ...errorResponses(400, 401) },
      },
      config: { cachedUser: true },
    },
    async (req, reply) => {
      const q = req.query;
      const cursor = q.cursor !== undefined ? decodeActionItemCursor(q.cursor) : null;
      if (q.cursor !== undefined && !cursor) throw badCursor();
      const limit = q.limit ?? ARRAY_LIST_DEFAULT_LIMIT;
      return sendArrayPage(req, reply, await listActionItemsPage(db, req.user.id, { limit, cursor }), limit);
    },
  );

  app.get(
    '/api/calls/:callId/action-items',
    {
      schema: {
        tags,
        summary: 'The action items of one call (AI and MANUAL)',
        description: 'In creation order: the analysis\'s items in the analysis order, then manually created ones.',
        params: CallParams,
        response: { 200: Type.Array(Item), ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const items = await listForCall(db, req.user.id, req.params.callId);
      if (!items) throw errors.callNotFound();
      return items.map(actionItemOf);
    },
  );

  app.post(
    '/api/calls/:callId/action-items',
    {
      schema: {
        tags,
        summary: 'Create an action item by hand (source MANUAL, status OPEN)',
        description: `At most ${MAX_MANUAL_ITEMS_PER_CALL} MANUAL items per call (422 action_item_limit_reached with details.limit); a deleted item frees its place, AI items do not count.`,
        params: CallParams,
        body: Type.Object({
          title: Title,
          description: Type.Optional(Nullable(Description)),
          dueDate: Type.Optional(Nullable(DueDate)),
          priority: Type.Optional(Nullable(PrioritySchema)),
        }),
        response: { 201: Item, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const row = await createManual(db, req.user.id, req.params.callId, {
        title: b.title,
        description: b.description ?? null,
        dueDate: b.dueDate ?? null,
        priority: b.priority ?? null,
      });
      return reply.status(201).send(actionItemOf(row));
    },
  );

  app.put(
    '/api/action-items/:id',
    {
      schema: {
        tags,
        summary: 'Replace an action item\'s editable fields',
        description:
          'title and status are required; description, dueDate and priority are replaced too: null (or an omitted field) clears them. Moving to DONE records the completion time server-side; any other status clears it. Other fields of the record (source, owner, intent) are not editable and are ignored if sent.',
        params: ItemParams,
        body: Type.Object({
          title: Title,
          description: Type.Optional(Nullable(Description)),
          dueDate: Type.Optional(Nullable(DueDate)),
          priority: Type.Optional(Nullable(PrioritySchema)),
          status: StatusSchema,
        }),
        response: { 200: Item, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const b = req.body;
      const row = await replaceActionItem(db, req.user.id, req.params.id, {
        title: b.title,
        description: b.description ?? null,
        dueDate: b.dueDate ?? null,
        priority: b.priority ?? null,
        status: b.status,
      });
      return actionItemOf(row);
    },
  );

  app.patch(
    '/api/actions/:id',
    {
      schema: {
        tags,
        summary: 'Change an action item\'s status',
        description: 'Only status is settable here; other fields in the body are ignored. DONE records the completion time server-side; any other status clears it.',
        params: ItemParams,
        body: Type.Object({ status: StatusSchema }),
        response: { 200: Item, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const { status } = req.body;
      return actionItemOf(await setActionItemStatus(db, req.user.id, req.params.id, status));
    },
  );

  app.delete(
    '/api/action-items/:id',
    {
      schema: {
        tags,
        summary: 'Delete an action item',
        params: ItemParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (req, reply) => {
      await deleteActionItem(db, req.user.id, req.params.id);
      return reply.status(204).send(null);
    },
  );
}
