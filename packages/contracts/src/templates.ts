import { z } from 'zod';
import { idSchema, isoDateTime } from './common.ts';
import { querySpecSchema } from './query-spec.ts';

/**
 * Saved query templates (verified questions). A template belongs to a connection and keeps the
 * QuerySpec of the run it was saved from; each typed parameter binds one value slot of that spec
 * (a JSON Pointer such as `/filter/conditions/0/value`, `/filter/range/from` or `/limit`), and
 * appears in the question as `{{name}}`. Running a template skips the planner: values are checked
 * against their type and placed into the spec, which the connector compiles like any other.
 */
export const TEMPLATE_MAX_PARAMETERS = 10;
export const TEMPLATE_STRING_MAX = 500;

export const templateParameterTypes = ['string', 'number', 'date', 'enum'] as const;
export type TemplateParameterType = (typeof templateParameterTypes)[number];

/* eslint-disable-next-line no-control-regex */
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

export const templateValueSchema = z.union([
  z
    .string()
    .max(TEMPLATE_STRING_MAX, `must be at most ${TEMPLATE_STRING_MAX} characters`)
    .regex(NO_CONTROL, 'must not contain control characters'),
  z.number(),
]);
export type TemplateValue = z.infer<typeof templateValueSchema>;

export const templateParameterSchema = z
  .strictObject({
    name: z
      .string()
      .regex(
        /^[A-Za-z_][A-Za-z0-9_]{0,39}$/,
        'must be a letter or _ followed by up to 39 letters, digits or _',
      ),
    type: z.enum(templateParameterTypes),
    description: z.string().max(200).optional(),
    values: z
      .array(templateValueSchema)
      .min(1)
      .max(100)
      .optional()
      .describe('type enum: the allowed values.'),
    default: templateValueSchema.describe('Used when a run does not give this parameter.'),
    target: z
      .string()
      .max(200)
      .regex(/^(\/[^/]+)+$/, 'must be a JSON Pointer into query_spec, e.g. /filter/conditions/0/value')
      .describe(
        'JSON Pointer to the value this parameter sets in query_spec: the `value` of a comparison (in a filter or `having`) or text filter, an item of an `in`/`not_in` list, the `from`/`to` of an absolute time range, or `/limit`.',
      ),
  })
  .meta({ id: 'TemplateParameter' });
export type TemplateParameter = z.infer<typeof templateParameterSchema>;

const templateFields = {
  name: z.string().trim().min(1, 'must not be empty').max(120),
  description: z.string().max(1000).nullable().optional(),
  question: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(2000)
    .describe('The question with `{{name}}` where each parameter goes.'),
  parameters: z.array(templateParameterSchema).max(TEMPLATE_MAX_PARAMETERS).default([]),
};

export const templateCreateSchema = z
  .strictObject({
    id: idSchema.describe('The connection id.'),
    ...templateFields,
    run_id: idSchema.describe('A succeeded run of this connection: its QuerySpec becomes the template’s.'),
  })
  .meta({ id: 'TemplateCreate' });

export const templateUpdateSchema = z
  .strictObject({
    template_id: idSchema,
    ...templateFields,
    run_id: idSchema
      .optional()
      .describe('Take the QuerySpec of another succeeded run of the same connection.'),
  })
  .meta({ id: 'TemplateUpdate' });

export const templateSchema = z
  .object({
    id: z.string(),
    connection_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    question: z.string(),
    parameters: z.array(templateParameterSchema),
    query_spec: querySpecSchema,
    source_run_id: z.string().nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Template' });
export type Template = z.infer<typeof templateSchema>;

export const templateListSchema = z
  .object({ templates: z.array(templateSchema) })
  .meta({ id: 'TemplateList' });

/** `template` of a run request. */
export const runTemplateSchema = z
  .strictObject({
    id: idSchema,
    parameters: z
      .record(z.string(), templateValueSchema)
      .default({})
      .describe('Parameter name -> value; a parameter left out takes its default.'),
  })
  .meta({ id: 'RunTemplate' });
