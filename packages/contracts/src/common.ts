import { z } from 'zod';

export const isoDateTime = z.string().describe('ISO-8601 UTC timestamp.');
export const idSchema = z.string().min(1).max(64);

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

export const detailSchema = z.object({ detail: z.string() }).meta({ id: 'Detail' });
export type Detail = z.infer<typeof detailSchema>;

export const healthSchema = z.object({ status: z.enum(['ok']) });
