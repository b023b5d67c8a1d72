import {
  connectionIdParamSchema,
  curatedMetadataInputSchema,
  idParamSchema,
  introspectionResultSchema,
  metadataStatusSchema,
  schemaListSchema,
  schemaOverridesInputSchema,
  schemaSelectionInputSchema,
  schemaSettingsSchema,
  selectedTablesInputSchema,
  tableDetailSchema,
  tableListSchema,
  tableParamSchema,
} from '@aqs/contracts';
import { schema } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Schema'];
const lazy = 'Introspects the connection first when it never was.';

export const schemaRouter = router({
  introspect: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/introspect',
        tags,
        summary: 'Read the structure now (no AI) and store it',
      },
    })
    .input(idParamSchema)
    .output(introspectionResultSchema)
    .mutation(({ ctx, input }) => schema.introspect(ctx.deps, ctx.principal, input.id, ctx.signal())),

  schemas: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/{id}/schemas',
        tags,
        summary: 'Schemas (PostgreSQL) or scope patterns (Elasticsearch) in scope',
        description: lazy,
      },
    })
    .input(idParamSchema)
    .output(schemaListSchema)
    .query(({ ctx, input }) => schema.listSchemas(ctx.deps, ctx.principal, input.id, ctx.signal())),

  tables: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'GET',
        path: '/api/v1/schema/{connection_id}/tables',
        tags,
        summary: 'Tables, views, indices, aliases and data streams in scope',
        description: lazy,
      },
    })
    .input(connectionIdParamSchema)
    .output(tableListSchema)
    .query(({ ctx, input }) => schema.listTables(ctx.deps, ctx.principal, input.connection_id, ctx.signal())),

  table: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'GET',
        path: '/api/v1/schema/{connection_id}/tables/{table_name}',
        tags,
        summary: 'One table: columns with types, keys, descriptions and sample values when known',
        description: 'PostgreSQL tables are named `schema.table` (the bare name works when unique).',
      },
    })
    .input(tableParamSchema)
    .output(tableDetailSchema)
    .query(({ ctx, input }) =>
      schema.getTable(ctx.deps, ctx.principal, input.connection_id, input.table_name, ctx.signal()),
    ),

  metadataStatus: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/{id}/metadata/status',
        tags,
        summary: 'Whether the analysed metadata is stale',
      },
    })
    .input(idParamSchema)
    .output(metadataStatusSchema)
    .query(({ ctx, input }) => schema.metadataStatus(ctx.deps, ctx.principal, input.id)),

  getMetadata: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/{id}/metadata',
        tags,
        summary:
          'What was curated: descriptions and semantic types, key and relationship overrides, the selection',
        description:
          'The curated values as stored (what PUT .../metadata, .../schema-overrides and .../schema-selection replace), so a client edits one without losing the others. Analyses never write them.',
      },
    })
    .input(idParamSchema)
    .output(schemaSettingsSchema)
    .query(({ ctx, input }) => schema.getSettings(ctx.deps, ctx.principal, input.id)),

  putMetadata: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/connections/{id}/metadata',
        tags,
        summary: 'Replace the curated table and column descriptions (and semantic types)',
      },
    })
    .input(curatedMetadataInputSchema)
    .output(schemaSettingsSchema)
    .mutation(({ ctx, input }) => schema.putCurated(ctx.deps, ctx.principal, input)),

  putOverrides: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/connections/{id}/schema-overrides',
        tags,
        summary: 'Replace key and relationship overrides used when planning',
      },
    })
    .input(schemaOverridesInputSchema)
    .output(schemaSettingsSchema)
    .mutation(({ ctx, input }) => schema.putOverrides(ctx.deps, ctx.principal, input)),

  putSelection: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/connections/{id}/schema-selection',
        tags,
        summary: 'Replace the persisted table and column selection',
      },
    })
    .input(schemaSelectionInputSchema)
    .output(schemaSettingsSchema)
    .mutation(({ ctx, input }) => schema.putSelection(ctx.deps, ctx.principal, input)),

  putSelectedTables: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/connections/{id}/selected-tables',
        tags,
        summary: 'Replace the selected tables (all columns)',
      },
    })
    .input(selectedTablesInputSchema)
    .output(schemaSettingsSchema)
    .mutation(({ ctx, input }) => schema.putSelectedTables(ctx.deps, ctx.principal, input.id, input.tables)),
});
