import { z } from 'zod';

export const isoDateTime = z.string().describe('ISO-8601 UTC timestamp.');
export const idSchema = z.string().min(1).max(64);

/** Largest value of a PostgreSQL `integer`: every integer a client sends is bounded by it (or less). */
export const MAX_INT32 = 2_147_483_647;

/** A whole number from a query-string or path parameter (text, so coerced), 0 or more and within int32. */
export const nonNegativeIntParam = z.coerce
  .number()
  .int('must be a whole number')
  .min(0, 'must be 0 or more')
  .max(MAX_INT32, `must be at most ${MAX_INT32}`);

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: nonNegativeIntParam.default(0),
});

export const detailSchema = z.object({ detail: z.string() }).meta({ id: 'Detail' });
export type Detail = z.infer<typeof detailSchema>;

export const healthSchema = z.object({ status: z.enum(['ok']) });
