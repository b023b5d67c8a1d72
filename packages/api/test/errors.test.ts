import { describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { toProblem } from '../src/index.ts';

describe('toProblem', () => {
  it("a schema refusing the input is a 422 naming the fields; one refusing a procedure's output is a 500", () => {
    const issues = [
      {
        code: 'invalid_type',
        path: ['target'],
        message: 'Invalid input: expected string, received undefined',
      },
    ];
    const zodError = Object.assign(new Error('invalid'), { name: 'ZodError', issues });
    const input = toProblem(
      new TRPCError({ code: 'BAD_REQUEST', message: 'Input validation failed', cause: zodError }),
    );
    expect(input.status).toBe(422);
    expect(input.body.errors).toEqual([{ field: 'target', message: 'is required' }]);
    const output = toProblem(
      new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed', cause: zodError }),
    );
    expect(output.status).toBe(500);
    expect(JSON.stringify(output.body)).not.toContain('target');
  });
});
