import { z } from 'zod';
import {
  dashboardCreateSchema,
  dashboardItemSchema,
  dashboardListSchema,
  dashboardRefreshSchema,
  dashboardSchema,
  dashboardUpdateSchema,
  detailSchema,
  idParamSchema,
  idSchema,
  itemCreateSchema,
  itemReorderSchema,
  itemUpdateSchema,
} from '@aqs/contracts';
import { dashboards, refreshDashboard, refreshDashboardItem } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Dashboards'];
const itemParams = z.strictObject({ id: idSchema, item_id: idSchema });

export const dashboardsRouter = router({
  list: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/v1/dashboards', tags, summary: 'Dashboards, with item counts' },
    })
    .input(z.strictObject({}))
    .output(dashboardListSchema)
    .query(({ ctx }) => dashboards.listDashboards(ctx.deps.db, ctx.principal)),

  create: authedProcedure
    .meta({
      successStatus: 201,
      openapi: { method: 'POST', path: '/api/v1/dashboards', tags, summary: 'Create a dashboard' },
    })
    .input(dashboardCreateSchema)
    .output(dashboardSchema)
    .mutation(({ ctx, input }) => dashboards.createDashboard(ctx.deps.db, ctx.principal, input)),

  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/dashboards/{id}',
        tags,
        summary: 'A dashboard with its items and their latest data',
      },
    })
    .input(idParamSchema)
    .output(dashboardSchema)
    .query(({ ctx, input }) => dashboards.getDashboard(ctx.deps.db, ctx.principal, input.id)),

  update: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/dashboards/{id}',
        tags,
        summary: 'Rename or describe a dashboard',
      },
    })
    .input(dashboardUpdateSchema)
    .output(dashboardSchema)
    .mutation(({ ctx, input }) => dashboards.updateDashboard(ctx.deps.db, ctx.principal, input)),

  delete: authedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/api/v1/dashboards/{id}', tags, summary: 'Delete a dashboard' },
    })
    .input(idParamSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await dashboards.deleteDashboard(ctx.deps.db, ctx.principal, input.id);
      return { detail: 'Dashboard deleted.' };
    }),

  refresh: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/dashboards/{id}/refresh',
        tags,
        summary: "Run every item's query again",
        description:
          "Re-executes each item's own copy of its query (never the planner; no question is charged), at most 4 at once and at most 2 per connection. One item's failure never fails the others: each outcome is listed, and a failed item keeps its previous data with `last_error`. A refresh already running for the dashboard is joined, not repeated.",
      },
    })
    .input(idParamSchema)
    .output(dashboardRefreshSchema)
    .mutation(({ ctx, input }) => refreshDashboard(ctx.deps, ctx.principal, input.id)),

  addItem: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/dashboards/{id}/items',
        tags,
        summary: 'Pin an answer',
        description:
          'Pins a table or chart artifact of one of your runs (404 otherwise). The item keeps its own copy of the query and the data, so deleting the run or its conversation does not break it.',
      },
    })
    .input(itemCreateSchema)
    .output(dashboardItemSchema)
    .mutation(({ ctx, input }) => dashboards.addItem(ctx.deps.db, ctx.principal, input)),

  reorder: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/dashboards/{id}/items/reorder',
        tags,
        summary: 'Put the items in a new order',
        description:
          '`item_ids` must list every item of the dashboard exactly once (422 naming what is missing, unknown or repeated); applied atomically.',
      },
    })
    .input(itemReorderSchema)
    .output(dashboardSchema)
    .mutation(({ ctx, input }) => dashboards.reorderItems(ctx.deps.db, ctx.principal, input)),

  updateItem: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/dashboards/{id}/items/{item_id}',
        tags,
        summary: 'Retitle or resize an item',
      },
    })
    .input(itemUpdateSchema)
    .output(dashboardItemSchema)
    .mutation(({ ctx, input }) => dashboards.updateItem(ctx.deps.db, ctx.principal, input)),

  deleteItem: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/dashboards/{id}/items/{item_id}',
        tags,
        summary: 'Remove an item',
      },
    })
    .input(itemParams)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await dashboards.deleteItem(ctx.deps.db, ctx.principal, input.id, input.item_id);
      return { detail: 'Item removed.' };
    }),

  refreshItem: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/dashboards/{id}/items/{item_id}/refresh',
        tags,
        summary: "Run one item's query again",
      },
    })
    .input(itemParams)
    .output(dashboardRefreshSchema)
    .mutation(({ ctx, input }) => refreshDashboardItem(ctx.deps, ctx.principal, input.id, input.item_id)),
});
