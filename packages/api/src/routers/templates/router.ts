import { z } from 'zod';
import {
  detailSchema,
  idParamSchema,
  idSchema,
  templateCreateSchema,
  templateListSchema,
  templateSchema,
  templateUpdateSchema,
} from '@aqs/contracts';
import { templates } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Query templates'];

const definitionRules =
  'Each `{{name}}` of the question needs a parameter and each parameter must appear in the question; `target` is a JSON Pointer into the query_spec of the run (`/filter/conditions/0/value`, `/filter/values/1`, `/filter/range/from`, `/limit`) and must fit the parameter type. A 422 names the offending field.';

export const templatesRouter = router({
  list: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/connections/{id}/templates',
        tags,
        summary: 'The saved query templates of a connection',
      },
    })
    .input(idParamSchema)
    .output(templateListSchema)
    .query(({ ctx, input }) => templates.listTemplates(ctx.deps.db, ctx.principal, input.id)),

  create: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/connections/{id}/templates',
        tags,
        summary: 'Save a verified question from a run',
        description: `The template keeps the QuerySpec of \`run_id\` (a succeeded run of this connection). ${definitionRules} Run it with \`template: {id, parameters}\` in a run request; a question that says the template's question with values in the parameter positions is answered by it too (\`planner: "template"\`).`,
      },
    })
    .input(templateCreateSchema)
    .output(templateSchema)
    .mutation(({ ctx, input }) => templates.createTemplate(ctx.deps.db, ctx.principal, input)),

  update: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/templates/{template_id}',
        tags,
        summary: 'Replace a template',
        description: `Replaces name, description, question and parameters; \`run_id\` takes the QuerySpec of another run of the same connection. ${definitionRules}`,
      },
    })
    .input(templateUpdateSchema)
    .output(templateSchema)
    .mutation(({ ctx, input }) => templates.updateTemplate(ctx.deps.db, ctx.principal, input)),

  delete: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/templates/{template_id}',
        tags,
        summary: 'Delete a template',
      },
    })
    .input(z.strictObject({ template_id: idSchema }))
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await templates.deleteTemplate(ctx.deps.db, ctx.principal, input.template_id);
      return { detail: 'Template deleted.' };
    }),
});
