import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { apiKeys, billing, PLAN_LIMITS, type CoreDeps } from '@aqs/core';
import { DataDirLockedError } from '@aqs/db';
import { planIds, type ApiKeySummary, type PlanId } from '@aqs/contracts';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { buildCoreDeps, openConfiguredStore } from './runtime.ts';
import { callAdminSocket } from './admin-socket.ts';

export const USAGE = `Usage: npm run cli -- <command>

  api-keys create --email <user email> [--name <label>] [--workspace <id>]
                                                          issue a key (printed alone on the last line) for
                                                          a workspace of the user (default: the one their
                                                          browser session works in)
  api-keys list [--email <user email>]                    list keys (prefix, owner, state)
  api-keys revoke <prefix>                                revoke a key by its prefix
  migrate                                                 apply the database migrations
  openapi [--out <file>] [--base-url <url>]               print or write the OpenAPI document
  plans set --email <user email> --plan <free|pro|team>   set the plan of the user's own workspace
                                                          (self-hosting without Stripe)
  plans list                                              print each plan's limits (PLAN_LIMITS_FILE applied)

The CLI reads the same configuration as the server (DATA_DIR, DATABASE_URL). With the embedded
store it works while the server runs, through the server's admin socket in DATA_DIR.`;

type PlanChange = Awaited<ReturnType<typeof billing.setPlanByEmail>>;

interface Admin {
  setPlan(email: string, plan: PlanId): Promise<PlanChange>;
  create(
    email: string,
    name?: string,
    workspaceId?: string,
  ): Promise<{ key: string; summary: ApiKeySummary }>;
  list(email?: string): Promise<ApiKeySummary[]>;
  revoke(prefix: string): Promise<ApiKeySummary>;
  close(): Promise<void>;
}

/** Direct access to the store when it can be opened; otherwise the running server's admin socket. */
async function openAdmin(config: Config): Promise<Admin> {
  try {
    const store = await openConfiguredStore(config);
    const deps: CoreDeps = buildCoreDeps(config, store, createLogger('warn', process.stderr as never)).deps;
    return {
      setPlan: (email, plan) => billing.setPlanByEmail(deps, email, plan),
      create: (email, name, workspaceId) => apiKeys.createApiKey(deps, { email, name, workspaceId }),
      list: (email) => apiKeys.listApiKeys(deps, { email }),
      revoke: (prefix) => apiKeys.revokeApiKey(deps, prefix),
      close: () => store.close(),
    };
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    const dir = config.dataDir;
    return {
      setPlan: async (email, plan) =>
        (await callAdminSocket(dir, 'POST', '/plans', { email, plan })) as PlanChange,
      create: async (email, name, workspaceId) =>
        (await callAdminSocket(dir, 'POST', '/api-keys', { email, name, workspaceId })) as {
          key: string;
          summary: ApiKeySummary;
        },
      list: async (email) =>
        (await callAdminSocket(
          dir,
          'GET',
          `/api-keys${email ? `?email=${encodeURIComponent(email)}` : ''}`,
        )) as ApiKeySummary[],
      revoke: async (prefix) =>
        (await callAdminSocket(dir, 'POST', '/api-keys/revoke', { prefix })) as ApiKeySummary,
      close: async () => undefined,
    };
  }
}

function describe(key: ApiKeySummary): string {
  const state = key.revoked_at
    ? `revoked ${key.revoked_at}`
    : key.last_used_at
      ? `last used ${key.last_used_at}`
      : 'never used';
  return `${key.prefix}  ${key.user_email}  ${key.name ?? '-'}  created ${key.created_at}  ${state}`;
}

/** Runs one CLI command; returns the process exit code. Output goes to `out`, problems to `err`. */
export async function runCli(
  argv: string[],
  config: Config,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  const [command, sub, ...rest] = argv;
  try {
    if (command === 'migrate') {
      const store = await openConfiguredStore(config);
      await store.close();
      out(
        `Migrations applied (${config.databaseUrl ? 'PostgreSQL' : `embedded store in ${config.dataDir}`}).`,
      );
      return 0;
    }
    if (command === 'openapi') {
      const { values } = parseArgs({
        args: [sub, ...rest].filter((a): a is string => a !== undefined),
        options: { out: { type: 'string' }, 'base-url': { type: 'string' } },
      });
      const { buildOpenApiDocument } = await import('@aqs/api/openapi');
      const text = `${JSON.stringify(buildOpenApiDocument(values['base-url'] ?? config.appUrl), null, 2)}\n`;
      if (values.out) writeFileSync(resolve(config.workingDir, values.out), text);
      else out(text.trimEnd());
      return 0;
    }
    if (command === 'api-keys' && (sub === 'create' || sub === 'list' || sub === 'revoke')) {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { email: { type: 'string' }, name: { type: 'string' }, workspace: { type: 'string' } },
      });
      if (sub === 'create' && !values.email) {
        err('api-keys create needs --email <user email> (the user must have registered).');
        return 2;
      }
      if (sub === 'revoke' && !positionals[0]) {
        err('api-keys revoke needs the key prefix, e.g. `api-keys revoke 3k9xq2m7ab` (see `api-keys list`).');
        return 2;
      }
      const admin = await openAdmin(config);
      try {
        if (sub === 'create') {
          const { key, summary } = await admin.create(values.email as string, values.name, values.workspace);
          out(
            `Created API key ${summary.prefix} for ${summary.user_email} (workspace ${summary.workspace_id}).`,
          );
          out('Store it now: it is shown only once. Send it in the X-API-Key header.');
          out(key);
        } else if (sub === 'list') {
          const keys = await admin.list(values.email);
          if (keys.length === 0) out('No API keys.');
          for (const key of keys) out(describe(key));
        } else {
          const revoked = await admin.revoke(positionals[0] as string);
          out(`Revoked API key ${revoked.prefix} of ${revoked.user_email}.`);
        }
      } finally {
        await admin.close();
      }
      return 0;
    }
    if (command === 'plans' && sub === 'list') {
      const table = config.planLimits ?? PLAN_LIMITS;
      out('plan  questions/month  AI schema analyses/month  active connections  seats');
      for (const plan of planIds) {
        const l = table[plan];
        out(
          `${plan.padEnd(5)} ${String(l.questionsPerMonth).padStart(15)}  ${String(l.schemaAnalysesPerMonth).padStart(24)}  ${String(l.connections).padStart(18)}  ${String(l.seats).padStart(5)}`,
        );
      }
      return 0;
    }
    if (command === 'plans' && sub === 'set') {
      const { values } = parseArgs({
        args: rest,
        options: { email: { type: 'string' }, plan: { type: 'string' } },
      });
      const plan = planIds.find((id) => id === values.plan);
      if (!values.email || !plan) {
        err(
          `plans set needs --email <user email> and --plan <${planIds.join('|')}>, e.g. plans set --email ada@example.com --plan team`,
        );
        return 2;
      }
      const admin = await openAdmin(config);
      try {
        const change = await admin.setPlan(values.email, plan);
        out(`${change.workspaceName} (${change.workspaceId}): plan ${change.previous} -> ${plan}.`);
        if (change.paused > 0)
          out(
            `Paused ${change.paused} connection(s) beyond the ${plan} plan's slots (newest first; nothing deleted).`,
          );
        if (change.resumed > 0) out(`Resumed ${change.resumed} connection(s) the plan had paused.`);
      } finally {
        await admin.close();
      }
      return 0;
    }
    err(USAGE);
    return 2;
  } catch (error) {
    err(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
