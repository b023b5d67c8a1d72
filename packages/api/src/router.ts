import { router } from './trpc.ts';
import { authRouter } from './routers/auth/router.ts';
import { connectionsRouter } from './routers/connections/router.ts';
import { schemaRouter } from './routers/schema/router.ts';

export const appRouter = router({
  auth: authRouter,
  connections: connectionsRouter,
  schema: schemaRouter,
});

export type AppRouter = typeof appRouter;
