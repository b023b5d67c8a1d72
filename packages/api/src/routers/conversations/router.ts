import { z } from 'zod';
import {
  conversationDetailSchema,
  conversationListInputSchema,
  conversationListSchema,
  detailSchema,
  idParamSchema,
  nonNegativeIntParam,
  runResultSchema,
} from '@aqs/contracts';
import { runs } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Conversations'];

export const conversationsRouter = router({
  list: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/conversations',
        tags,
        summary: 'Conversations, most recently active first',
        description: '`limit` 1-100 (default 20), `offset` default 0, optional `connection_id`.',
      },
    })
    .input(conversationListInputSchema)
    .output(conversationListSchema)
    .query(({ ctx, input }) => runs.listConversations(ctx.deps.db, ctx.principal, input)),

  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/conversations/{id}',
        tags,
        summary: 'A conversation with its turns',
      },
    })
    .input(idParamSchema)
    .output(conversationDetailSchema)
    .query(({ ctx, input }) => runs.getConversation(ctx.deps.db, ctx.principal, input.id)),

  runs: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/conversations/{id}/runs',
        tags,
        summary: 'The runs of a conversation, in turn order',
      },
    })
    .input(idParamSchema)
    .output(z.object({ runs: z.array(runResultSchema) }))
    .query(async ({ ctx, input }) => ({
      runs: await runs.conversationRuns(ctx.deps.db, ctx.principal, input.id),
    })),

  delete: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/conversations/{id}',
        tags,
        summary: 'Delete a conversation and its runs',
      },
    })
    .input(idParamSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await runs.deleteConversation(ctx.deps.db, ctx.principal, input.id);
      return { detail: 'Conversation deleted.' };
    }),

  truncate: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/conversations/{id}/runs/from/{from_turn_index}',
        tags,
        summary: 'Remove a turn and every later turn',
        description:
          'Used to replay a question in place: truncate from its turn, then ask again with the same `conversation_id`.',
      },
    })
    .input(z.strictObject({ id: z.string().min(1).max(64), from_turn_index: nonNegativeIntParam }))
    .output(z.object({ detail: z.string(), removed: z.number().int() }))
    .mutation(async ({ ctx, input }) => {
      const removed = await runs.truncateConversation(
        ctx.deps.db,
        ctx.principal,
        input.id,
        input.from_turn_index,
      );
      return { detail: `Removed ${removed} turn(s).`, removed };
    }),
});
