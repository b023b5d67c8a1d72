import type { Context as HonoContext } from 'hono';
import { idSchema } from '@aqs/contracts';
import { DomainError, type Principal } from '@aqs/core';
import type { AppEnv } from './env.ts';

// What the plain routes (files, streams) check before anything else, as the REST adapter would.

export function signedIn(principal: Principal | undefined): Principal {
  if (!principal)
    throw new DomainError('unauthorized', 'Sign in, or send an API key in the X-API-Key header.');
  return principal;
}

export function pathId(c: HonoContext<AppEnv>, name: string): string {
  const value = c.req.param(name) ?? '';
  if (!idSchema.safeParse(value).success)
    throw new DomainError('validation', `The ${name} in the path is not an id.`, {
      fields: [{ field: name, message: 'must be an id of 1 to 64 characters' }],
    });
  return value;
}
