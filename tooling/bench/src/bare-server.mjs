// Baseline for the server benchmarks: a bare Hono app on @hono/node-server, nothing else. Plain
// JavaScript, started by node as the built service is.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const app = new Hono();
app.get('/readyz', (c) => c.json({ status: 'ok' }));
app.get('/auth/me', (c) => c.json({ user: { id: 'usr_1', email: 'bench@example.com' } }));
const port = Number(process.argv[2] ?? '0');
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log('listening on', port));
