import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Env, Hono } from 'hono';

const require = createRequire(import.meta.url);
const assetDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};
const cache = new Map<string, string>();

const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Analytics Query Service API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

const init = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'";

/** The interactive reference, served from the swagger-ui-dist package: no CDN. */
export function mountDocs<E extends Env>(app: Hono<E>): void {
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', CSP);
    return c.html(html);
  });
  app.get('/docs/assets/init.js', (c) =>
    c.body(init, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) return c.json({ detail: `No documentation asset named ${file}.` }, 404);
    let body = cache.get(file);
    if (body === undefined) {
      body = readFileSync(join(assetDir, file), 'utf8');
      cache.set(file, body);
    }
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' });
  });
}
