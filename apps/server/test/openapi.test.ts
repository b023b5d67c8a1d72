import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openapiTS, { astToString } from 'openapi-typescript';
import { appRouter } from '@aqs/api';
import { buildOpenApiDocument } from '@aqs/api/openapi';
import { AqsApiError, createAqsClient, unwrap } from '@aqs/client';
import { apiKeys } from '@aqs/core';
import { signedInBrowser, startTestServer, uniqueEmail, type TestServer } from '../src/testing.ts';

const require = createRequire(import.meta.url);
const committedDocPath = require.resolve('@aqs/client/openapi.json');
const committedSchemaPath = committedDocPath.replace(/openapi\.json$/, 'src/schema.ts');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

type Doc = {
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
};

describe('the OpenAPI document', () => {
  it('documents every procedure of the router and every plain route, with their security schemes', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc & {
      components: { securitySchemes: object };
    };
    for (const procedure of Object.values(appRouter._def.procedures)) {
      const meta = (
        procedure as unknown as { _def: { meta?: { openapi?: { method: string; path: string } } } }
      )._def.meta;
      expect(meta?.openapi, 'every procedure has a REST route').toBeDefined();
      expect(doc.paths[meta!.openapi!.path]?.[meta!.openapi!.method.toLowerCase()]).toBeDefined();
    }
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs', '/metrics'])
      expect(doc.paths[path]?.get).toBeDefined();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'apiKey',
      'metricsToken',
      'sessionCookie',
    ]);
    expect(doc.paths['/metrics']!.get!.security).toEqual([{ metricsToken: [] }, {}]);
    expect(doc.paths['/auth/me']!.get!.security).toEqual([{ sessionCookie: [] }, { apiKey: [] }]);
  });

  it('states the real success statuses and the {detail} error body', () => {
    const doc = buildOpenApiDocument('/') as unknown as Doc;
    expect(Object.keys(doc.paths['/auth/email/register']!.post!.responses)).toContain('202');
    expect(Object.keys(doc.paths['/auth/email/register']!.post!.responses)).not.toContain('200');
    expect(doc.paths['/auth/me']!.get!.responses['429']).toMatchObject({
      headers: { 'Retry-After': expect.anything() },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    expect(JSON.stringify(doc)).not.toContain('error.INTERNAL_SERVER_ERROR');
  });

  it('is the committed document of the client package (run `npm run generate:client` after changing routes)', async () => {
    const committed = JSON.parse(readFileSync(committedDocPath, 'utf8')) as unknown;
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument('/'))));
    const generated = astToString(await openapiTS(new URL(`file://${committedDocPath}`)));
    const header = readFileSync(committedSchemaPath, 'utf8').split('export interface paths')[0] ?? '';
    expect(readFileSync(committedSchemaPath, 'utf8')).toBe(
      `${header}${generated.slice(generated.indexOf('export interface paths'))}`,
    );
  });

  it('serves an interactive reference from the app itself, with no CDN', async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) {
      const res = await fetch(`${server.url}/docs/assets/${asset}`);
      expect(res.status).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(10);
    }
    expect((await fetch(`${server.url}/docs/assets/..%2fpackage.json`)).status).toBe(404);
  });
});

describe('the typed client package', () => {
  it('calls the service with an API key and surfaces errors as AqsApiError', async () => {
    const email = uniqueEmail('client');
    await signedInBrowser(server, email);
    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email });
    const client = createAqsClient({ baseUrl: server.url, apiKey: key });
    const me = await unwrap(client.GET('/auth/me'));
    expect(me.user.email).toBe(email);
    expect(me.auth_method).toBe('api_key');
    const status = await unwrap(client.GET('/auth/me/onboarding-status'));
    expect(status.next_step).toBe('verify_email');

    const bad = createAqsClient({ baseUrl: server.url, apiKey: 'aqs_0000000000_bad' });
    const error = await unwrap(bad.GET('/auth/me')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AqsApiError);
    expect((error as AqsApiError).status).toBe(401);
    expect((error as AqsApiError).problem.detail).toMatch(/API key/);
  });
});
