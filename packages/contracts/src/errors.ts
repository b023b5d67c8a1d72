import { z } from 'zod';

/** Stable `code` values of quota errors (429 with a code), kept apart from the plain rate-limit 429. */
export const quotaErrorCodes = [
  'quota_questions_exceeded',
  'quota_schema_analyses_exceeded',
  'quota_connections_exceeded',
  'quota_seats_exceeded',
] as const;
export type QuotaErrorCode = (typeof quotaErrorCodes)[number];

export const fieldErrorSchema = z.object({
  field: z.string().describe('Dotted path of the offending field, e.g. `config.cluster_url`.'),
  message: z.string(),
});
export type FieldError = z.infer<typeof fieldErrorSchema>;

/**
 * The one error body of the service: `{detail}`; quota errors add `code`, validation errors add `errors`,
 * data-source failures (502) add `code` `data_source_<kind>` with `symptom`, `cause` and `fix`.
 */
export const problemSchema = z
  .object({
    detail: z.string().describe('A human sentence saying what went wrong and how to fix it.'),
    code: z.string().optional().describe('Stable machine code; present on quota errors (429).'),
    errors: z
      .array(fieldErrorSchema)
      .optional()
      .describe('Validation errors (422), one per field (at most 20 are listed).'),
    symptom: z
      .string()
      .optional()
      .describe(
        'Data-source failures (502): what the data source did, e.g. `401 Unauthorized` or `Connection reset by the server`.',
      ),
    cause: z.string().optional().describe('Data-source failures (502): why it happened.'),
    fix: z.string().optional().describe('Data-source failures (502): what to change.'),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof problemSchema>;
