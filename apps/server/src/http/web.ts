// The web app arrives with its own issue; until then the root page says where things are.
export const webPlaceholderHtml = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Analytics Query Service</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2933}code{background:#f0f2f5;padding:0 .25rem}</style>
</head>
<body>
<main>
<h1>Analytics Query Service</h1>
<p>The service is running. The web app is not built yet; use the API:</p>
<ul>
<li><a href="/docs">Interactive API reference</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
<li>Register with <code>POST /auth/email/register</code>, then sign in with <code>POST /auth/email/login</code>.</li>
</ul>
</main>
</body>
</html>`;
