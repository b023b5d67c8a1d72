import { z } from 'zod';
import {
  discoverInputSchema,
  discoveryJobSchema,
  discoveryJobStartSchema,
  discoverySummarySchema,
  idParamSchema,
  jobParamsSchema,
} from '@aqs/contracts';
import { discovery } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Schema discovery'];
const allowance =
  'A fresh analysis takes one unit of the monthly schema analyses (429 `quota_schema_analyses_exceeded` when none is left); re-attaching to a running job, or retrying one that failed or was cancelled on the same structure (it goes on from its finished tables), takes none.';

export const discoveryRouter = router({
  discover: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/discover',
        tags,
        summary: 'Analyse the schema now (blocking) and answer the metadata summary',
        description: `Runs a discovery job in this request: introspection, value sampling, per-table counts (semantic types, key candidates), relationships checked on the data; the result is stored with the structure fingerprint it was made from. When a job of the connection is already running, this waits for it. ${allowance}`,
      },
    })
    .input(discoverInputSchema)
    .output(discoverySummarySchema)
    .mutation(({ ctx, input }) =>
      discovery.discoverNow(ctx.deps, ctx.principal, input, 'analysis', ctx.signal()),
    ),

  crossSchema: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/discover/cross-schema',
        tags,
        summary: 'Find relationships again from the stored analysis',
        description:
          'Relationships only (declared, and inferred by name then checked on the data), reusing the stored analysis; nothing is charged. 409 when the connection has no analysis yet.',
      },
    })
    .input(discoverInputSchema)
    .output(discoverySummarySchema)
    .mutation(({ ctx, input }) =>
      discovery.discoverNow(ctx.deps, ctx.principal, input, 'cross_schema', ctx.signal()),
    ),

  startJob: authedProcedure
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/discover/jobs',
        tags,
        summary: 'Start a background analysis, or re-attach to the running one',
        description: `Answers the job and \`attached\` (true: the connection's queued or running job, which this request did not start). The job outlives the client; follow it with GET .../discover/jobs/{job_id}/stream. ${allowance}`,
      },
    })
    .input(discoverInputSchema)
    .output(discoveryJobStartSchema)
    .mutation(async ({ ctx, input }) => {
      const started = await discovery.startJob(ctx.deps, ctx.principal, input);
      if (!started.attached) ctx.deps.discoveryQueued?.();
      return started;
    }),

  activeJob: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/{id}/discover/jobs/active',
        tags,
        summary: "The connection's queued or running job, and the last one that ended",
        description:
          '`job`: the queued or running job (null when none), to re-attach to; `last`: the most recent job that ended (succeeded, failed or cancelled), with its summary when it succeeded; `analysis`: the stored analysis (null before the first), whatever job made it.',
      },
    })
    .input(idParamSchema)
    .output(
      z
        .object({
          job: discoveryJobSchema.nullable(),
          last: discoveryJobSchema.nullable(),
          analysis: discoverySummarySchema.nullable(),
        })
        .meta({ id: 'ActiveDiscoveryJob' }),
    )
    .query(({ ctx, input }) => discovery.activeJob(ctx.deps, ctx.principal, input.id)),

  getJob: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/{id}/discover/jobs/{job_id}',
        tags,
        summary: 'A discovery job: state, progress, timestamps, error, and its summary once done',
      },
    })
    .input(jobParamsSchema)
    .output(discoveryJobSchema)
    .query(({ ctx, input }) => discovery.getJob(ctx.deps, ctx.principal, input.id, input.job_id)),

  cancelJob: authedProcedure
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/discover/jobs/{job_id}/cancel',
        tags,
        summary: 'Ask a job to stop (best effort)',
        description:
          'Always 202 for a job of yours: a queued job is cancelled at once, a running one at its next table (its finished tables are kept for a retry). A job that already ended is left as it is.',
      },
    })
    .input(jobParamsSchema)
    .output(z.object({ detail: z.string(), job: discoveryJobSchema }).meta({ id: 'DiscoveryJobCancel' }))
    .mutation(({ ctx, input }) => discovery.cancelJob(ctx.deps, ctx.principal, input.id, input.job_id)),
});
