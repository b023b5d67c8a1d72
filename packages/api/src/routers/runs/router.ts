import { z } from 'zod';
import { runListInputSchema, runListSchema, runRequestSchema, runResultSchema } from '@aqs/contracts';
import { executeRun, runs } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Runs'];

export const runsRouter = router({
  run: authedProcedure
    .meta({
      reachesDataSource: true,
      dataSourceFailureInBody: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/run',
        tags,
        summary: 'Ask a question and wait for the answer',
        description:
          'Runs the whole pipeline (building_context, planning, executing) and returns the finished RunResult. Not idempotent: each call creates a run. A run that starts is stored whole with status `succeeded`, `failed` (with `error`) or `cancelled` (the client went away). Unknown or foreign connection/conversation: 404; paused connection: 409; monthly questions used: 429 `quota_questions_exceeded`. With `template: {id, parameters}` (and no `question`) a saved query template answers it without the planner (`planner: "template"`; 422 `template.parameters.<name>` for a value that does not fit), and so does a question that says the question of a template with values in its parameter positions. In a conversation with an answer, a question that only asks for a chart style ("dark theme, legend at the bottom", "make it a line chart") patches the style of the conversation and stores a turn showing the last answer again (`planner: "style"`): no query runs and no question is charged. For progress events use `POST /api/v1/run/stream`.',
      },
    })
    .input(runRequestSchema)
    .output(runResultSchema)
    .mutation(({ ctx, input }) => executeRun(ctx.deps, ctx.principal, input, undefined, ctx.signal())),

  list: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/runs',
        tags,
        summary: 'Run history, newest first',
        description:
          '`limit` 1-100 (default 20), `offset` default 0; filter by `connection_id` and `status` (`succeeded`, `failed`, `cancelled`).',
      },
    })
    .input(runListInputSchema)
    .output(runListSchema)
    .query(({ ctx, input }) => runs.listRuns(ctx.deps.db, ctx.principal, input)),

  get: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/v1/runs/{run_id}', tags, summary: 'One run with its artifacts' },
    })
    .input(z.strictObject({ run_id: z.string().min(1).max(64) }))
    .output(runResultSchema)
    .query(({ ctx, input }) => runs.getRun(ctx.deps.db, ctx.principal, input.run_id)),
});
