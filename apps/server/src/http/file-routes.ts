import { Readable } from 'node:stream';
import type { Context as HonoContext, Hono } from 'hono';
import type { z } from 'zod';
import {
  artifactCsvQuerySchema,
  artifactDownloadQuerySchema,
  artifactRenderQuerySchema,
} from '@aqs/contracts';
import {
  DomainError,
  contentDisposition,
  csvExport,
  downloadArtifact,
  downloadItem,
  renderArtifact,
  type CoreDeps,
  type FileResponse,
} from '@aqs/core';
import { fieldErrorsOf } from '@aqs/api';
import type { AppEnv } from './env.ts';
import { pathId, signedIn } from './plain-route.ts';

/**
 * The routes that answer with a file rather than JSON (the REST adapter speaks JSON only): an
 * artifact's download and render, a run's CSV, and a dashboard item's download. Authentication, the
 * rate limit and error bodies are the guard's and the app's, as for every `/api/*` route.
 */
export function mountFileRoutes(app: Hono<AppEnv>, deps: CoreDeps): void {
  app.get('/api/v1/artifacts/:artifact_id/download', async (c) => {
    const principal = signedIn(c.get('principal'));
    const { format } = parse(artifactDownloadQuerySchema, c.req.query());
    return send(c, await downloadArtifact(deps, principal, pathId(c, 'artifact_id'), format), 'attachment');
  });

  app.get('/api/v1/artifacts/:artifact_id/render', async (c) => {
    const principal = signedIn(c.get('principal'));
    const query = parse(artifactRenderQuerySchema, c.req.query());
    return send(c, await renderArtifact(deps, principal, pathId(c, 'artifact_id'), query), 'inline');
  });

  app.get('/api/v1/runs/:run_id/artifacts/:artifact_id/csv', async (c) => {
    const principal = signedIn(c.get('principal'));
    const { rerun } = parse(artifactCsvQuerySchema, c.req.query());
    const file = await csvExport(deps, principal, pathId(c, 'run_id'), pathId(c, 'artifact_id'), {
      rerun,
      signal: c.req.raw.signal,
    });
    return send(c, file, 'attachment');
  });

  app.get('/api/v1/dashboards/:id/items/:item_id/download', async (c) => {
    const principal = signedIn(c.get('principal'));
    const { format } = parse(artifactDownloadQuerySchema, c.req.query());
    const file = await downloadItem(deps, principal, pathId(c, 'id'), pathId(c, 'item_id'), format);
    return send(c, file, 'attachment');
  });
}

function parse<S extends z.ZodType>(schema: S, query: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success)
    throw new DomainError('validation', 'The query string is invalid.', {
      fields: fieldErrorsOf(parsed.error.issues),
    });
  return parsed.data;
}

function send(c: HonoContext<AppEnv>, file: FileResponse, disposition: 'attachment' | 'inline'): Response {
  c.header('Content-Type', file.contentType);
  c.header('Content-Disposition', contentDisposition(file.filename).replace(/^attachment/, disposition));
  c.header('Cache-Control', 'private, no-cache');
  // An SVG opened on its own is a document: it may not run or fetch anything.
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
  const body = file.body;
  if (body instanceof Readable) return c.body(Readable.toWeb(body) as ReadableStream);
  return c.body(typeof body === 'string' ? body : new Uint8Array(body));
}
