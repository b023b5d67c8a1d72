import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureDir, startTestCluster } from '@aqs/es-test-cluster';
import { signedInClient, startBenchServer } from './bench-server.ts';
import { median, ratio } from './processes.ts';

const ROUNDS = 3;
const FIELDS = 1000;
const DOCS = 500;

/**
 * An index of 1000 fields (nested objects of keywords, numbers, dates and booleans, as a wide log or
 * product index has), written as a fixture of the stand-in next to a copy of the weblogs fixture.
 */
function wideFixture(dir: string): void {
  cpSync(fixtureDir('weblogs'), dir, { recursive: true });
  const index = join(dir, 'indices', 'wide');
  mkdirSync(index, { recursive: true });
  const kinds = ['keyword', 'long', 'double', 'date', 'boolean'] as const;
  const groups: Record<string, { properties: Record<string, { type: string }> }> = {};
  const fields: { group: string; name: string; kind: (typeof kinds)[number] }[] = [];
  for (let i = 0; i < FIELDS; i++) {
    const group = `group_${String(Math.floor(i / 50)).padStart(2, '0')}`;
    const kind = kinds[i % kinds.length]!;
    const name = `${kind === 'double' ? 'amount' : kind === 'long' ? 'count' : kind === 'date' ? 'seen_at' : kind === 'boolean' ? 'is_flag' : 'status'}_${i}`;
    (groups[group] ??= { properties: {} }).properties[name] = { type: kind };
    fields.push({ group, name, kind });
  }
  writeFileSync(join(index, 'mapping.json'), JSON.stringify({ mappings: { properties: groups } }));
  const docs: string[] = [];
  for (let d = 0; d < DOCS; d++) {
    const doc: Record<string, Record<string, unknown>> = {};
    for (const f of fields) {
      const value =
        f.kind === 'keyword'
          ? `v${(d + f.name.length) % 7}`
          : f.kind === 'long'
            ? d % 97
            : f.kind === 'double'
              ? (d * 3.7) % 1000
              : f.kind === 'date'
                ? new Date(Date.UTC(2024, 0, 1 + (d % 300))).toISOString()
                : d % 2 === 0;
      (doc[f.group] ??= {})[f.name] = value;
    }
    docs.push(JSON.stringify(doc));
  }
  writeFileSync(join(index, 'docs.ndjson'), docs.join('\n') + '\n');
}

/** The few answer fields the bench reads, loosely. */
/**
 * An OpenAI-compatible chat endpoint standing in for a model: it answers a schema description with
 * every table and column it was shown (an empty description each) and counts tokens as a tokenizer
 * would roughly (4 characters each), so the prompt sizes the analysis sends are measured.
 */
async function startMockModel(): Promise<{ url: string; server: Server; calls: () => number }> {
  let calls = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      calls++;
      const body = JSON.parse(raw) as { model: string; messages: { role: string; content: unknown }[] };
      const prompt = body.messages
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join('\n');
      const tables: {
        name: string;
        description: null;
        columns: { name: string; description: null; semantic_type: string }[];
      }[] = [];
      for (const line of prompt.split('\n')) {
        const table = /^- table (".*")$/.exec(line);
        if (table) tables.push({ name: JSON.parse(table[1]!) as string, description: null, columns: [] });
        const column = /^ {2}- column (".*?") \([^;]*; (\w+)/.exec(line);
        if (column && tables.length > 0)
          tables.at(-1)!.columns.push({
            name: JSON.parse(column[1]!) as string,
            description: null,
            semantic_type: column[2]!,
          });
      }
      const content = JSON.stringify({ tables, relationships: [] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${calls}`,
          object: 'chat.completion',
          created: 1_718_452_800,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: {
            prompt_tokens: Math.ceil(raw.length / 4),
            completion_tokens: Math.ceil(content.length / 4),
            total_tokens: Math.ceil((raw.length + content.length) / 4),
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server, calls: () => calls };
}

type Body = {
  id: string;
  connections: { id: string; is_demo: boolean }[];
  column_count: number;
  usage: { engine_queries: number; prompt_tokens: number };
  analyser: string;
};

/**
 * A schema analysis (POST /discover) against introspection alone (POST /introspect) on the same
 * connection, in the same run: a 1000-field Elasticsearch index on the stand-in, and the demo shop.
 * Prints the time, the engine queries issued and the prompt tokens sent to a (mock) model.
 */
export async function benchDiscovery(): Promise<void> {
  const fixtures = mkdtempSync(join(tmpdir(), 'aqs-bench-wide-'));
  wideFixture(fixtures);
  const cluster = await startTestCluster({ fixtures, version: '8.15.0' });
  const model = await startMockModel();
  const { server, close } = await startBenchServer('discovery', {
    LLM_API_KEY: 'sk-bench',
    LLM_BASE_URL: model.url,
    LLM_MODEL: 'bench-model',
  });
  try {
    type Figures = {
      introspect: number[];
      discover: number[];
      queries: number[];
      seen: number[];
      tokens: number[];
    };
    const results: Record<'wide' | 'demo', Figures> = {
      wide: { introspect: [], discover: [], queries: [], seen: [], tokens: [] },
      demo: { introspect: [], discover: [], queries: [], seen: [], tokens: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      // A workspace per round: each analysis takes one of its plan's monthly units.
      const signedIn = await signedInClient(server.url, `bench-discovery-${round}@example.com`);
      const call = (method: string, path: string, body?: object) => signedIn<Body>(method, path, body);
      const wide = await call('POST', '/api/v1/connections', {
        name: 'wide',
        dialect: 'elasticsearch',
        auth_mode: 'basic',
        config: {
          cluster_url: cluster.url,
          username: 'elastic',
          password: 'changeme',
          allowed_indices: ['wide'],
        },
      });
      const demo = (await call('GET', '/api/v1/connections')).connections.find((c) => c.is_demo)!;
      for (const [name, id] of [
        ['wide', wide.id],
        ['demo', demo.id],
      ] as const) {
        let t = performance.now();
        await call('POST', `/api/v1/connections/${id}/introspect`);
        results[name].introspect.push(performance.now() - t);
        const before = cluster.stats().started;
        t = performance.now();
        const summary = await call('POST', `/api/v1/connections/${id}/discover`, {});
        results[name].discover.push(performance.now() - t);
        results[name].queries.push(summary.usage.engine_queries);
        results[name].tokens.push(summary.usage.prompt_tokens);
        if (summary.usage.prompt_tokens === 0) throw new Error('the mock model was not asked');
        if (name === 'wide' && summary.column_count < FIELDS)
          throw new Error(`only ${summary.column_count} fields`);
        if (name === 'wide') {
          // The stand-in also sees the value sampling (runs' sampler), which the summary does not count.
          results.wide.seen.push(cluster.stats().started - before);
          if (cluster.stats().started - before < summary.usage.engine_queries)
            throw new Error('the stand-in saw fewer queries than the analysis counted');
        }
      }
    }
    const line = (label: string, r: Figures) =>
      `  ${label}\n` +
      `    introspection alone (baseline): ${median(r.introspect).toFixed(1)} ms\n` +
      `    analysis (POST /discover)     : ${median(r.discover).toFixed(1)} ms (${ratio(median(r.discover), median(r.introspect))}), ${median(r.queries)} counting queries` +
      (r.seen.length > 0 ? `, ${median(r.seen)} queries seen by the engine (value sampling included)` : '') +
      `, ${median(r.tokens)} prompt tokens`;
    console.log(
      `schema discovery, medians of ${ROUNDS} rounds (each in a new workspace)\n` +
        line(`${FIELDS}-field Elasticsearch index (${DOCS} documents, stand-in)`, results.wide) +
        '\n' +
        line('demo shop (7 tables, embedded PostgreSQL)', results.demo) +
        `\n  the model is a local mock (tokens counted as 4 characters each; its time is near zero): ${model.calls()} calls`,
    );
  } finally {
    await close();
    await cluster.stop();
    await new Promise<void>((resolve) => model.server.close(() => resolve()));
    rmSync(fixtures, { recursive: true, force: true });
  }
}
