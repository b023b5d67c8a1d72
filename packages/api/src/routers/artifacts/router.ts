import { z } from 'zod';
import { artifactRecordSchema, idSchema } from '@aqs/contracts';
import { artifacts } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Artifacts'];

export const artifactsRouter = router({
  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/artifacts/{artifact_id}',
        tags,
        summary: 'One artifact (table or chart) with its run, conversation and version',
        description:
          "A chart's `option` carries its conversation's style. `version` starts at 1 and rises with each refresh; `refreshed_at` says when. Files: `GET .../download`, `GET .../render`, and the CSV under the run.",
      },
    })
    .input(z.strictObject({ artifact_id: idSchema }))
    .output(artifactRecordSchema)
    .query(({ ctx, input }) => artifacts.getArtifact(ctx.deps.db, ctx.principal, input.artifact_id)),

  refresh: authedProcedure
    .meta({
      reachesDataSource: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/runs/{run_id}/artifacts/{artifact_id}/refresh',
        tags,
        summary: "Run the run's stored query again and store the fresh rows as a new version",
        description:
          "Re-executes the run's stored query on the engine (never the planner; no question is charged), stores the rows as the new version of the run's table and rebuilds its chart, and returns the artifact asked for with `refreshed_at`. Ownership is checked against the run id in the path: an artifact of another run is a 404. An engine failure leaves the old version in place and answers 502 with the connector's `symptom`, `cause` and `fix`; a run that did not succeed, a deleted connection or a paused one is a 409.",
      },
    })
    .input(z.strictObject({ run_id: idSchema, artifact_id: idSchema }))
    .output(artifactRecordSchema)
    .mutation(({ ctx, input }) =>
      artifacts.refreshArtifact(ctx.deps, ctx.principal, input.run_id, input.artifact_id, ctx.signal()),
    ),
});
