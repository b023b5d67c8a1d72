import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { QueryClient } from '@tanstack/react-query';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@aqs/api';

export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;
export type Connection = Outputs['connections']['get'];
export type Dialect = Outputs['connections']['dialects']['dialects'][number];
export type AuthMode = Dialect['auth_modes'][number];
export type FormField = AuthMode['fields'][number];
export type TestResult = Outputs['connections']['test'];
export type RunResult = Outputs['runs']['get'];
export type Conversation = Outputs['conversations']['list']['conversations'][number];
export type TableSummary = Outputs['schema']['tables']['tables'][number];
export type TableDetail = Outputs['schema']['table'];
export type Me = Outputs['auth']['me'];
export type Onboarding = Outputs['auth']['onboardingStatus'];
export type ConversationStyle = Outputs['style']['get'];
export type StylePreset = Outputs['style']['presets']['presets'][number];
export type Template = Outputs['templates']['list']['templates'][number];
export type TemplateParameter = Template['parameters'][number];
export type DashboardSummary = Outputs['dashboards']['list']['dashboards'][number];
export type Dashboard = Outputs['dashboards']['get'];
export type DashboardItem = Dashboard['items'][number];
export type ItemOutcome = Outputs['dashboards']['refresh']['outcomes'][number];
export type BillingSummary = Outputs['billing']['summary'];
export type PlanId = BillingSummary['plan'];
export type WorkspaceView = Outputs['workspace']['get'];
export type OwnerWorkspaceView = Extract<WorkspaceView, { role: 'owner' }>;
export type MemberWorkspaceView = Extract<WorkspaceView, { role: 'member' }>;
export type WorkspaceMember = OwnerWorkspaceView['members'][number];
export type WorkspaceInvite = OwnerWorkspaceView['invites'][number];
export type MyWorkspace = Outputs['auth']['workspaces']['workspaces'][number];

export interface FieldError {
  field: string;
  message: string;
}

/** What a 502 adds when a data source failed: what happened, why, and what to do. */
export interface DataSourceProblem {
  symptom?: string | null;
  cause?: string | null;
  fix?: string | null;
}

/** One error shape for the whole app: the server's `detail` (+ `code`, field errors, Retry-After). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly fieldErrors: FieldError[] = [],
    readonly retryAfterSeconds?: number,
    readonly dataSource?: DataSourceProblem,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * A response the server sends before tRPC sees the request (the rate limiter's 429, a CSRF 403):
 * plain `{detail}` JSON that tRPC's link cannot parse. The fetch wrapper turns it into an ApiError.
 */
async function guardedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, { ...init, credentials: 'same-origin' });
  if (res.status === 429 || res.status === 403 || res.status === 413) {
    const text = await res.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body && typeof body === 'object' && !Array.isArray(body) && 'detail' in body && !('error' in body)) {
      const retry = Number(res.headers.get('retry-after'));
      throw new ApiError(
        String((body as { detail: unknown }).detail),
        res.status,
        undefined,
        [],
        Number.isFinite(retry) && retry > 0 ? retry : undefined,
      );
    }
  }
  return res;
}

/** Every call in the same tick goes out as one HTTP request (one unit of the per-minute limit). */
export const trpc = createTRPCClient<AppRouter>({
  // The server takes at most 10 procedures per batch (413 beyond).
  links: [httpBatchLink({ url: '/trpc', maxURLLength: 2000, maxItems: 10, fetch: guardedFetch })],
});

interface ProblemShape {
  problem?: { detail?: string; code?: string; errors?: FieldError[] } & DataSourceProblem;
}

/** Normalises anything thrown by the tRPC client, the stream route or fetch into an ApiError. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof TRPCClientError) {
    if (error.cause instanceof ApiError) return error.cause;
    const shape = error.shape as ProblemShape | undefined;
    const data = error.data as { httpStatus?: number } | undefined;
    const problem = shape?.problem;
    if (problem?.detail) {
      const { symptom, cause, fix } = problem;
      const dataSource = symptom || cause || fix ? { symptom, cause, fix } : undefined;
      return new ApiError(
        problem.detail,
        data?.httpStatus ?? 500,
        problem.code,
        problem.errors ?? [],
        undefined,
        dataSource,
      );
    }
    if (error.cause instanceof TypeError)
      return new ApiError('The server could not be reached. Check your network and try again.', 0);
    return new ApiError(error.message || 'The request failed.', data?.httpStatus ?? 0);
  }
  if (error instanceof DOMException && error.name === 'AbortError')
    return new ApiError('Stopped.', 0, 'aborted');
  if (error instanceof TypeError)
    return new ApiError('The server could not be reached. Check your network and try again.', 0);
  if (error instanceof Error) return new ApiError(error.message, 0);
  return new ApiError('Something went wrong.', 0);
}

/** The error message of a field (`config.cluster_url`) from a 422, if any. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!error) return undefined;
  return toApiError(error).fieldErrors.find((e) => e.field === field)?.message;
}

/** The messages of a field and of its items (`palette`, `palette.2`) from a 422, joined; undefined when none. */
export function fieldErrorsUnder(error: unknown, field: string): string | undefined {
  if (!error) return undefined;
  const messages = toApiError(error)
    .fieldErrors.filter((e) => e.field === field || e.field.startsWith(`${field}.`))
    .map((e) => (e.field === field ? e.message : `${e.field.slice(field.length + 1)}: ${e.message}`));
  return messages.length > 0 ? messages.join('; ') : undefined;
}

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Reads are cached: every request counts against the 20/minute limit. Nothing polls.
      staleTime: 60_000,
      gcTime: 10 * 60_000,
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
      retry: (failures, error) => {
        const e = toApiError(error);
        return e.status === 0 && e.code !== 'aborted' && failures < 1;
      },
    },
    mutations: { retry: false },
  },
});

/** Query keys, one place. */
export const keys = {
  me: ['auth', 'me'] as const,
  onboarding: ['auth', 'onboarding'] as const,
  connections: (tag?: string) => ['connections', 'list', tag ?? null] as const,
  connectionsAll: ['connections'] as const,
  connection: (id: string) => ['connections', 'get', id] as const,
  dialects: ['connections', 'dialects'] as const,
  tables: (id: string) => ['schema', 'tables', id] as const,
  table: (id: string, name: string) => ['schema', 'table', id, name] as const,
  conversations: ['conversations', 'list'] as const,
  conversation: (id: string) => ['conversations', 'get', id] as const,
  style: (conversationId: string) => ['style', 'get', conversationId] as const,
  stylePresets: ['style', 'presets'] as const,
  templates: (connectionId: string) => ['templates', 'list', connectionId] as const,
  runs: (filters: { status?: string; connection_id?: string; offset: number }) =>
    ['runs', 'list', filters] as const,
  runsAll: ['runs'] as const,
  dashboards: ['dashboards', 'list'] as const,
  dashboard: (id: string) => ['dashboards', 'get', id] as const,
  billing: ['billing', 'summary'] as const,
  workspace: ['workspace', 'get'] as const,
  myWorkspaces: ['auth', 'workspaces'] as const,
};
