import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Env, Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The app's pages load only our own scripts, styles and data. */
const CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

const notBuilt = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Analytics Query Service</title></head>
<body><main><h1>Analytics Query Service</h1><p>The web app has not been built. Run <code>npm start</code> (it builds it), or
<code>npm run build -w @aqs/web</code>. The API reference is at <a href="/docs">/docs</a>.</p></main></body></html>`;

/** Paths the SPA owns; everything else that is not an API route is a 404. */
const API = /^\/(api|auth|trpc|docs|openapi\.json|healthz|readyz)(\/|$)/;

/**
 * Serves the built web app (`distDir`, from the config's WEB_DIST_DIR): hashed assets with immutable
 * caching, and index.html for every other GET that asks for HTML (client-side routes such as
 * /verify-email from the emails).
 */
export function mountWeb<E extends Env>(app: Hono<E>, dir: string): void {
  // One spelling of the folder (no trailing separator), so the containment checks below hold.
  const distDir = resolve(dir);
  let indexHtml: string | undefined;
  const index = () => {
    if (indexHtml !== undefined) return indexHtml;
    const file = join(distDir, 'index.html');
    if (!existsSync(file)) return notBuilt;
    indexHtml = readFileSync(file, 'utf8');
    return indexHtml;
  };

  app.get('/assets/*', (c) => {
    const path = normalize(join(distDir, c.req.path));
    if (!path.startsWith(distDir + sep) || !existsSync(path) || !statSync(path).isFile())
      return c.json({ detail: `No asset ${c.req.path}.` }, 404);
    return c.body(readFileSync(path), 200, {
      'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
  });

  app.get('*', async (c, next) => {
    if (API.test(c.req.path)) return next();
    const file = normalize(join(distDir, c.req.path));
    if (c.req.path !== '/' && file.startsWith(distDir + sep) && existsSync(file) && statSync(file).isFile()) {
      return c.body(readFileSync(file), 200, {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'public, max-age=3600',
      });
    }
    if (!(c.req.header('accept') ?? '').includes('text/html') && c.req.path !== '/') return next();
    c.header('Content-Security-Policy', CSP);
    c.header('Cache-Control', 'no-cache');
    return c.html(index());
  });
}
