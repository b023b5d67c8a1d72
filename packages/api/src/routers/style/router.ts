import { z } from 'zod';
import {
  chartStylePatchSchema,
  conversationStyleSchema,
  idSchema,
  restyledChartSchema,
  stylePresetListSchema,
} from '@aqs/contracts';
import { artifacts, style } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Chart styling'];

export const styleRouter = router({
  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/conversations/{id}/style',
        tags,
        summary: "A conversation's chart style",
        description: 'A conversation that was never styled answers the default style with `version` 0.',
      },
    })
    .input(z.strictObject({ id: idSchema }))
    .output(conversationStyleSchema)
    .query(({ ctx, input }) => style.getConversationStyle(ctx.deps.db, ctx.principal, input.id)),

  update: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/conversations/{id}/style',
        tags,
        summary: 'Change the chart style of a conversation',
        description:
          "Applies a whitelisted patch directly (no AI) and bumps `version`: any of preset, theme, palette, title, show_title, legend_position, axis_label_rotation, number_format, date_format, stacked, smooth, area, series_labels, bar_orientation. Setting `preset` also resets `theme` and `palette` to the preset's unless the patch sets them. An unknown setting or a bad value is a 422 naming it. Every chart of the conversation shows the new style.",
      },
    })
    .input(chartStylePatchSchema.extend({ id: idSchema }))
    .output(conversationStyleSchema)
    .mutation(({ ctx, input }) => {
      const { id, ...patch } = input;
      return style.updateConversationStyle(ctx.deps.db, ctx.principal, id, patch);
    }),

  restyle: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/conversations/{id}/charts/restyle',
        tags,
        summary: "A chart's ECharts option with the conversation's style applied",
        description:
          'Query `run_id` and `artifact_id`: the run must belong to the conversation and the artifact to the run (404 otherwise); a table artifact is a 422.',
      },
    })
    .input(z.strictObject({ id: idSchema, run_id: idSchema, artifact_id: idSchema }))
    .output(restyledChartSchema)
    .query(({ ctx, input }) =>
      artifacts.restyleChart(ctx.deps.db, ctx.principal, input.id, input.run_id, input.artifact_id),
    ),

  presets: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/style/presets',
        tags,
        summary: 'The global style presets',
        description:
          'Each names a palette, colours and a light or dark theme; `colourblind` is safe for the common colour-vision deficiencies and `print` is monochrome with patterns.',
      },
    })
    .input(z.strictObject({}))
    .output(stylePresetListSchema)
    .query(() => style.listStylePresets()),
});
