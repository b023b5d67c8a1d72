import { z } from 'zod';
import { idSchema, isoDateTime } from './common.ts';
import { querySpecSchema } from './query-spec.ts';
import { chartArtifactSchema, tableArtifactSchema } from './runs.ts';

/**
 * Dashboards: answers pinned from runs, arranged on a grid and refreshed together. An item keeps its
 * own copy of the query it re-executes and of its latest data, so deleting the run or conversation it
 * came from does not break it.
 */
export const DASHBOARD_GRID = { columns: 12, maxHeight: 12 } as const;
export const DASHBOARD_MAX_ITEMS = 50;

export const itemSizeSchema = z
  .strictObject({
    w: z
      .number()
      .int('must be a whole number of grid columns')
      .min(1, `must be from 1 to ${DASHBOARD_GRID.columns}`)
      .max(DASHBOARD_GRID.columns, `must be from 1 to ${DASHBOARD_GRID.columns}`),
    h: z
      .number()
      .int('must be a whole number of grid rows')
      .min(1, `must be from 1 to ${DASHBOARD_GRID.maxHeight}`)
      .max(DASHBOARD_GRID.maxHeight, `must be from 1 to ${DASHBOARD_GRID.maxHeight}`),
  })
  .meta({ id: 'DashboardItemSize' });
export type ItemSize = z.infer<typeof itemSizeSchema>;

const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const description = z.string().max(2000, 'must be at most 2000 characters').nullable().optional();
const title = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const dashboardCreateSchema = z.strictObject({ name, description }).meta({ id: 'DashboardCreate' });
export const dashboardUpdateSchema = z
  .strictObject({ id: idSchema, name, description })
  .meta({ id: 'DashboardUpdate' });

export const itemCreateSchema = z
  .strictObject({
    id: idSchema.describe('The dashboard id.'),
    artifact_id: idSchema.describe('A table or chart artifact of one of your runs.'),
    title: title.optional().describe("Defaults to the run's question."),
    size: itemSizeSchema.optional(),
  })
  .meta({ id: 'DashboardItemCreate' });
export const itemUpdateSchema = z
  .strictObject({ id: idSchema, item_id: idSchema, title: title.optional(), size: itemSizeSchema.optional() })
  .meta({ id: 'DashboardItemUpdate' });
export const itemReorderSchema = z
  .strictObject({
    id: idSchema,
    item_ids: z
      .array(idSchema)
      .max(DASHBOARD_MAX_ITEMS)
      .describe('Every item of the dashboard, in the new order.'),
  })
  .meta({ id: 'DashboardItemReorder' });

const itemData = z.discriminatedUnion('kind', [
  tableArtifactSchema.omit({ id: true, run_id: true }),
  chartArtifactSchema.omit({ id: true, run_id: true }),
]);

export const dashboardItemSchema = z
  .object({
    id: z.string(),
    dashboard_id: z.string(),
    title: z.string(),
    position: z.number().int(),
    size: itemSizeSchema,
    kind: z.enum(['table', 'chart']),
    artifact_id: z.string().nullable().describe('The pinned artifact; null once its run was deleted.'),
    run_id: z.string().nullable(),
    connection_id: z.string().nullable().describe('null once the connection was deleted.'),
    query: z.object({ dialect: z.string(), text: z.string() }),
    query_spec: querySpecSchema.nullable(),
    data: itemData.describe('The latest rows (and chart) of the item.'),
    refreshed_at: isoDateTime.nullable(),
    last_error: z
      .object({ type: z.string(), message: z.string() })
      .nullable()
      .describe('Why the last refresh failed; the data shown is the previous one.'),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'DashboardItem' });
export type DashboardItem = z.infer<typeof dashboardItemSchema>;

export const dashboardSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    item_count: z.number().int(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'DashboardSummary' });

export const dashboardSchema = dashboardSummarySchema
  .extend({ items: z.array(dashboardItemSchema) })
  .meta({ id: 'Dashboard' });
export type Dashboard = z.infer<typeof dashboardSchema>;

export const dashboardListSchema = z
  .object({ dashboards: z.array(dashboardSummarySchema) })
  .meta({ id: 'DashboardList' });

export const itemRefreshOutcomeSchema = z
  .object({
    item_id: z.string(),
    status: z.enum(['refreshed', 'failed']),
    error: z.object({ type: z.string(), message: z.string() }).nullable(),
    refreshed_at: isoDateTime.nullable(),
  })
  .meta({ id: 'DashboardItemRefreshOutcome' });

export const dashboardRefreshSchema = z
  .object({ dashboard: dashboardSchema, outcomes: z.array(itemRefreshOutcomeSchema) })
  .meta({ id: 'DashboardRefresh' });
