import { describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { fieldErrorsUnder, toApiError } from '../src/lib/api.ts';

/** An error as the tRPC link hands it over: the server's shape, with its `problem` body. */
function procedureError(httpStatus: number, problem: Record<string, unknown>) {
  return TRPCClientError.from({
    error: { message: String(problem.detail), code: -32603, data: { httpStatus }, problem },
  });
}

describe('toApiError', () => {
  it("keeps a data source's symptom, cause and fix (a 502 from a refresh)", () => {
    const error = toApiError(
      procedureError(502, {
        detail: 'The data source failed.',
        code: 'data_source_timeout',
        symptom: 'The query did not finish in 30 s.',
        cause: 'The server is slow.',
        fix: 'Try again later.',
      }),
    );
    expect(error).toMatchObject({
      message: 'The data source failed.',
      status: 502,
      code: 'data_source_timeout',
    });
    expect(error.dataSource).toEqual({
      symptom: 'The query did not finish in 30 s.',
      cause: 'The server is slow.',
      fix: 'Try again later.',
    });
    expect(toApiError(procedureError(409, { detail: 'Paused.' })).dataSource).toBeUndefined();
  });

  it('gathers the field errors of a setting and of its items (palette, palette.1)', () => {
    const error = procedureError(422, {
      detail: 'Invalid input.',
      errors: [
        { field: 'palette.1', message: 'must be a colour' },
        { field: 'title', message: 'must be at most 120 characters' },
        { field: 'palettes', message: 'unknown setting' },
      ],
    });
    expect(fieldErrorsUnder(error, 'palette')).toBe('1: must be a colour');
    expect(fieldErrorsUnder(error, 'title')).toBe('must be at most 120 characters');
    expect(fieldErrorsUnder(error, 'theme')).toBeUndefined();
  });
});
