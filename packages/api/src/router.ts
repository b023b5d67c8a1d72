import { router } from './trpc.ts';
import { authRouter } from './routers/auth/router.ts';
import { connectionsRouter } from './routers/connections/router.ts';
import { schemaRouter } from './routers/schema/router.ts';
import { runsRouter } from './routers/runs/router.ts';
import { conversationsRouter } from './routers/conversations/router.ts';
import { artifactsRouter } from './routers/artifacts/router.ts';
import { styleRouter } from './routers/style/router.ts';
import { templatesRouter } from './routers/templates/router.ts';
import { dashboardsRouter } from './routers/dashboards/router.ts';
import { discoveryRouter } from './routers/discovery/router.ts';
import { billingRouter } from './routers/billing/router.ts';
import { workspaceRouter } from './routers/workspace/router.ts';

export const appRouter = router({
  auth: authRouter,
  connections: connectionsRouter,
  schema: schemaRouter,
  runs: runsRouter,
  conversations: conversationsRouter,
  artifacts: artifactsRouter,
  style: styleRouter,
  templates: templatesRouter,
  dashboards: dashboardsRouter,
  discovery: discoveryRouter,
  billing: billingRouter,
  workspace: workspaceRouter,
});

export type AppRouter = typeof appRouter;
