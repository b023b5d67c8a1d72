import { chmodSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { apiKeys, billing, DomainError, type CoreDeps } from '@aqs/core';
import { planIds } from '@aqs/contracts';
import { toProblem } from '@aqs/api';

/**
 * With the embedded store only the server process may open the data directory, so operator commands
 * (the CLI) reach the running server through a Unix socket in DATA_DIR that only its owner can open.
 */
export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'admin.sock');
}

const createInput = z.object({
  email: z.string().min(3),
  name: z.string().optional(),
  workspaceId: z.string().optional(),
});
const revokeInput = z.object({ prefix: z.string().min(4) });
const planInput = z.object({ email: z.string().min(3), plan: z.enum(planIds) });

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

export async function startAdminSocket(deps: CoreDeps, dataDir: string): Promise<Server> {
  const path = adminSocketPath(dataDir);
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://admin');
        let result: unknown;
        if (req.method === 'POST' && url.pathname === '/api-keys') {
          result = await apiKeys.createApiKey(deps, createInput.parse(await readJson(req)));
        } else if (req.method === 'GET' && url.pathname === '/api-keys') {
          result = await apiKeys.listApiKeys(deps, { email: url.searchParams.get('email') ?? undefined });
        } else if (req.method === 'POST' && url.pathname === '/api-keys/revoke') {
          result = await apiKeys.revokeApiKey(deps, revokeInput.parse(await readJson(req)).prefix);
        } else if (req.method === 'POST' && url.pathname === '/plans') {
          const input = planInput.parse(await readJson(req));
          result = await billing.setPlanByEmail(deps, input.email, input.plan);
        } else {
          throw new DomainError('not_found', 'Unknown admin command.');
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      } catch (error) {
        const problem = toProblem(error);
        res
          .writeHead(problem.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(problem.body));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

/** Sends one admin command to the running server; the answer's `detail` becomes the error message. */
export function callAdminSocket(
  dataDir: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: adminSocketPath(dataDir), method, path, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { detail?: string };
          if ((res.statusCode ?? 500) >= 400)
            reject(new Error(parsed.detail ?? `admin command failed (${res.statusCode})`));
          else resolve(parsed);
        });
      },
    );
    req.on('error', (error) =>
      reject(
        new Error(
          `The data directory is locked by a running server, but its admin socket did not answer (${error.message}).`,
        ),
      ),
    );
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
