import { z } from 'zod';
import {
  authModeListSchema,
  connectionCreateInputSchema,
  connectionListSchema,
  connectionPatchInputSchema,
  connectionSchema,
  detailSchema,
  dialectListSchema,
  idParamSchema,
  listConnectionsInputSchema,
  pausedInputSchema,
  tagsInputSchema,
  testResultSchema,
} from '@aqs/contracts';
import { connections } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Connections'];

export const connectionsRouter = router({
  list: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections',
        tags,
        summary: 'List connections of your workspace',
        description: 'Filter with `?tag=` (exact tag). The demo connection comes first.',
      },
    })
    .input(listConnectionsInputSchema)
    .output(connectionListSchema)
    .query(async ({ ctx, input }) => ({
      connections: await connections.listConnections(ctx.deps, ctx.principal, input),
    })),

  create: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections',
        tags,
        summary: 'Create a connection',
        description:
          "Secret fields are encrypted at rest and never returned (`<field>_set: true` instead). Counts against the plan's active-connection slots (429 `quota_connections_exceeded` when full; pausing a connection frees its slot). Outbound addresses that are loopback, private or link-local are refused unless the operator allows private networks.",
      },
    })
    .input(connectionCreateInputSchema)
    .output(connectionSchema)
    .mutation(({ ctx, input }) => connections.createConnection(ctx.deps, ctx.principal, input)),

  dialects: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/dialects',
        tags,
        summary: 'Supported engines, their auth modes, form fields and availability',
        description: 'The authoritative list: clients read it rather than hard-code engines.',
      },
    })
    .input(z.void())
    .output(dialectListSchema)
    .query(() => ({ dialects: connections.dialects() })),

  authModes: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/auth-modes',
        tags,
        summary: 'Auth modes of one dialect, with their form fields',
      },
    })
    .input(
      z.strictObject({
        dialect: z.string().min(1, 'is required: a dialect id from GET /api/v1/connections/dialects'),
      }),
    )
    .output(authModeListSchema)
    .query(({ input }) => connections.authModesOf(input.dialect)),

  get: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/connections/{id}', tags, summary: 'Get a connection' } })
    .input(idParamSchema)
    .output(connectionSchema)
    .query(({ ctx, input }) => connections.getConnection(ctx.deps, ctx.principal, input.id)),

  update: authedProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/api/v1/connections/{id}',
        tags,
        summary: 'Update a connection',
        description:
          '`config` is merged: sent fields replace stored ones, `null` clears one, omitted secrets keep their stored value, except when a field that says where the connection points or how the server is verified changes (URL, host, port, database, TLS mode, CA): then the stored secrets are cleared and a required one must be sent again in the same request (422 naming it), so a credential never follows a connection to a new target. The whole result is validated again.',
      },
    })
    .input(connectionPatchInputSchema)
    .output(connectionSchema)
    .mutation(({ ctx, input }) => connections.updateConnection(ctx.deps, ctx.principal, input)),

  delete: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/connections/{id}',
        tags,
        summary: 'Delete a connection and everything that depends on it',
      },
    })
    .input(idParamSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await connections.deleteConnection(ctx.deps, ctx.principal, input.id);
      return { detail: 'Connection deleted.' };
    }),

  test: authedProcedure
    .meta({
      reachesDataSource: true,
      dataSourceFailureInBody: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/test',
        tags,
        summary: 'Check reachability, TLS, credentials, query endpoint, privileges and scope',
        description:
          "Always 200: `ok` says whether every check passed; on failure `symptom`, `cause` and `fix` follow the spec's symptom table.",
      },
    })
    .input(idParamSchema)
    .output(testResultSchema)
    .mutation(({ ctx, input }) =>
      connections.testConnection(ctx.deps, ctx.principal, input.id, ctx.signal()),
    ),

  duplicate: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/duplicate',
        tags,
        summary: 'Copy a connection (credentials included, re-encrypted)',
      },
    })
    .input(idParamSchema)
    .output(connectionSchema)
    .mutation(({ ctx, input }) => connections.duplicateConnection(ctx.deps, ctx.principal, input.id)),

  paused: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/paused',
        tags,
        summary: 'Pause or resume a connection',
        description: 'Pausing frees a connection slot and deletes nothing; resuming needs a free slot.',
      },
    })
    .input(pausedInputSchema)
    .output(connectionSchema)
    .mutation(({ ctx, input }) => connections.setPaused(ctx.deps, ctx.principal, input.id, input.paused)),

  tags: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/connections/{id}/tags',
        tags,
        summary: 'Replace the tags of a connection',
      },
    })
    .input(tagsInputSchema)
    .output(connectionSchema)
    .mutation(({ ctx, input }) => connections.setTags(ctx.deps, ctx.principal, input.id, input.tags)),
});
