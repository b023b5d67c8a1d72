/**
 * Regenerates the committed fixtures deterministically:
 *   npx tsx scripts/generate-fixtures.ts
 * writes fixtures/es-test/ (employees, logs-*, metrics-*, hidden indices, security) and
 * fixtures/weblogs/ (web access logs). The output is byte-for-byte reproducible.
 */
import { seededRandom } from '@aqs/contracts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

function writeIndex(dir: string, name: string, mapping: unknown, docs: unknown[]): void {
  const d = join(dir, 'indices', name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'mapping.json'), JSON.stringify(mapping, null, 2) + '\n');
  writeFileSync(join(d, 'docs.ndjson'), docs.map((x) => JSON.stringify(x)).join('\n') + '\n');
}

function writeJson(path: string, v: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(v, null, 2) + '\n');
}

const DAY = 86400000;
const iso = (t: number): string => new Date(t).toISOString();

// ---------------------------------------------------------------------------------------------
// es-test: employees
// ---------------------------------------------------------------------------------------------

const FIRST = [
  'Georgi',
  'Bezalel',
  'Parto',
  'Chirstian',
  'Kyoichi',
  'Anneke',
  'Tzvetan',
  'Saniya',
  'Sumant',
  'Duangkaew',
  'Mary',
  'Patricio',
  'Eberhardt',
  'Berni',
  'Guoxiang',
  'Kazuhito',
  'Cristinel',
  'Kazuhide',
  'Lillian',
  'Mayuko',
];
const LAST = [
  'Facello',
  'Simmel',
  'Bamford',
  'Koblick',
  'Maliniak',
  'Preusig',
  'Zielinski',
  'Kalloufi',
  'Peac',
  'Piveteau',
  'Sluis',
  'Bridgland',
  'Terkki',
  'Genin',
  'Nooteboom',
  'Cappelletti',
  'Bouloucos',
  'Peha',
  'Haddadi',
  'Warwick',
];
const POSITIONS = [
  'Accountant',
  'Architect',
  'Business Analyst',
  'Data Scientist',
  'Head Human Resources',
  'Internship',
  'Junior Developer',
  'Principal Support Engineer',
  'Purchase Manager',
  'Reporting Analyst',
  'Senior Python Developer',
  'Senior Team Lead',
  'Support Engineer',
  'Tech Lead',
];
const CITIES = ['Amsterdam', 'Berlin', 'Lisbon', 'Paris', 'Tokyo'];

function employees(): unknown[] {
  const docs: unknown[] = [];
  for (let i = 0; i < 100; i++) {
    const emp = 10001 + i;
    const first = FIRST[i % 20] as string;
    const last = LAST[(i * 7) % 20] as string;
    const doc: Record<string, unknown> = { emp_no: emp, first_name: first, last_name: last };
    if (i % 10 !== 9) doc.gender = i % 2 === 0 ? 'M' : 'F';
    if (i % 25 !== 24) doc.birth_date = iso(Date.UTC(1952, 0, 1) + i * 113 * DAY);
    doc.hire_date = iso(Date.UTC(1985, 0, 1) + i * 97 * DAY + (i % 4) * 3600000);
    if (i % 20 !== 19) doc.languages = (i % 5) + 1;
    doc.height = Math.round((1.4 + ((i * 37) % 61) / 100) * 100) / 100;
    doc.salary = 25000 + ((i * 7919) % 50000);
    if (i % 3 === 1) doc.salary_change = ((i % 13) - 6) * 1.25;
    else if (i % 3 === 2) doc.salary_change = [((i % 7) - 3) * 0.5, ((i % 11) - 5) * 1.5];
    if (i % 4 !== 0) {
      const n = (i % 3) + 1;
      const picks: string[] = [];
      for (let k = 0; k < n; k++) picks.push(POSITIONS[(i * 5 + k * 3) % POSITIONS.length] as string);
      doc.job_positions = picks.length === 1 ? picks[0] : picks;
    }
    doc.still_hired = i % 3 !== 0;
    if (i % 5 === 0) doc.is_rehired = [true, false];
    else if (i % 7 !== 0) doc.is_rehired = i % 2 === 0;
    doc.avg_worked_seconds = 200000000 + i * 1234567;
    doc.address = { city: CITIES[i % 5], zip: String(10000 + i * 37) };
    doc.projects = [{ name: `p${i % 6}`, hours: 10 + (i % 9) }];
    if (i % 10 === 0) doc.photo = Buffer.from(`photo-${emp}`).toString('base64');
    doc.last_login = `10.0.${i % 4}.${i + 1}`;
    doc.app_version = `1.${i % 12}.${i % 3}`;
    doc.bio = `${first} ${last} works in ${CITIES[i % 5]}`;
    docs.push(doc);
  }
  return docs;
}

const EMPLOYEES_MAPPING = {
  properties: {
    emp_no: { type: 'integer' },
    first_name: { type: 'keyword' },
    last_name: { type: 'keyword' },
    gender: { type: 'keyword' },
    birth_date: { type: 'date' },
    hire_date: { type: 'date' },
    languages: { type: 'byte', fields: { long: { type: 'long' }, short: { type: 'short' } } },
    height: {
      type: 'double',
      fields: {
        float: { type: 'float' },
        scaled_float: { type: 'scaled_float', scaling_factor: 100 },
        half_float: { type: 'half_float' },
      },
    },
    salary: { type: 'integer' },
    salary_change: {
      type: 'double',
      fields: { int: { type: 'integer' }, long: { type: 'long' }, keyword: { type: 'keyword' } },
    },
    job_positions: { type: 'keyword' },
    still_hired: { type: 'boolean' },
    is_rehired: { type: 'boolean' },
    avg_worked_seconds: { type: 'long' },
    address: { properties: { city: { type: 'keyword' }, zip: { type: 'keyword' } } },
    projects: { type: 'nested', properties: { name: { type: 'keyword' }, hours: { type: 'integer' } } },
    photo: { type: 'binary' },
    last_login: { type: 'ip' },
    app_version: { type: 'version' },
    bio: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
  },
};

// ---------------------------------------------------------------------------------------------
// es-test: logs-*
// ---------------------------------------------------------------------------------------------

const LEVELS = ['info', 'info', 'info', 'warn', 'error'];
const HOSTS = ['web-1', 'web-2', 'db-1'];

function logs(month: number, count: number, statusAsKeyword: boolean): unknown[] {
  const docs: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const t = Date.UTC(
      2024,
      month - 1,
      1 + (i % 28),
      (i * 5) % 24,
      (i * 7) % 60,
      (i * 11) % 60,
      (i * 37) % 1000,
    );
    const status = [200, 200, 200, 404, 500, 301][i % 6] as number;
    const doc: Record<string, unknown> = {
      '@timestamp': iso(t),
      message: `${LEVELS[i % 5]} request ${i} from ${HOSTS[i % 3]} status ${status}`,
      host: { name: HOSTS[i % 3] },
      level: LEVELS[i % 5],
      status: statusAsKeyword ? String(status) : status,
      bytes: 100 + ((i * 977) % 5000),
      response_time: Math.round((0.01 + ((i * 13) % 100) / 100) * 1000) / 1000,
      client_ip: `192.168.${month}.${(i % 50) + 1}`,
      service: 'frontend',
    };
    if (i % 4 === 0) doc.tags = ['prod', i % 8 === 0 ? 'eu' : 'us'];
    else if (i % 4 === 1) doc.tags = 'prod';
    if (!statusAsKeyword) doc.location = { lat: 48.8 + (i % 5) / 10, lon: 2.3 + (i % 3) / 10 };
    docs.push(doc);
  }
  return docs;
}

function logsMapping(statusAsKeyword: boolean): unknown {
  return {
    properties: {
      '@timestamp': { type: 'date' },
      message: { type: 'match_only_text', fields: { keyword: { type: 'keyword' } } },
      host: { properties: { name: { type: 'keyword' } } },
      level: { type: 'keyword' },
      status: { type: statusAsKeyword ? 'keyword' : 'integer' },
      bytes: { type: 'long' },
      response_time: { type: 'float' },
      client_ip: { type: 'ip' },
      service: { type: 'wildcard' },
      tags: { type: 'keyword' },
      ...(statusAsKeyword ? {} : { location: { type: 'geo_point' } }),
    },
  };
}

function generateEsTest(): void {
  const dir = join(root, 'es-test');
  writeIndex(dir, 'employees', EMPLOYEES_MAPPING, employees());
  writeIndex(dir, 'logs-2024.01', logsMapping(false), logs(1, 60, false));
  writeIndex(dir, 'logs-2024.02', logsMapping(true), logs(2, 40, true));
  writeIndex(dir, 'logs-archive', logsMapping(false), logs(12, 5, false));
  writeIndex(
    dir,
    '.internal-logs',
    { properties: { '@timestamp': { type: 'date' }, note: { type: 'keyword' } } },
    [
      { '@timestamp': '2024-01-01T00:00:00.000Z', note: 'internal' },
      { '@timestamp': '2024-01-02T00:00:00.000Z', note: 'secret' },
    ],
  );
  const metricsMapping = {
    properties: { '@timestamp': { type: 'date' }, cpu: { type: 'half_float' }, host: { type: 'keyword' } },
  };
  for (const name of ['metrics-a', 'metrics-b']) {
    const docs = Array.from({ length: 5 }, (_, i) => ({
      '@timestamp': iso(Date.UTC(2024, 2, 1 + i)),
      cpu: (i + 1) / 8,
      host: `${name}-h${i % 2}`,
    }));
    writeIndex(dir, name, metricsMapping, docs);
  }
  writeIndex(
    dir,
    'languages',
    { properties: { language_code: { type: 'integer' }, language_name: { type: 'keyword' } } },
    ['English', 'French', 'Spanish', 'German'].map((n, i) => ({ language_code: i + 1, language_name: n })),
  );
  writeJson(join(dir, 'aliases.json'), { logs: ['logs-2024.01', 'logs-2024.02'], staff: ['employees'] });
  writeJson(join(dir, 'hidden.json'), ['logs-archive']);
  writeJson(join(dir, 'unavailable_shards.json'), ['metrics-b']);
  writeJson(join(dir, 'security.json'), {
    users: [
      {
        username: 'elastic',
        password: 'changeme',
        roles: ['superuser'],
        cluster: ['all'],
        indices: [{ names: ['*'], privileges: ['all'] }],
      },
      {
        username: 'reader',
        password: 'reader-pass',
        roles: ['esql_reader'],
        cluster: [],
        indices: [
          {
            names: ['employees', 'logs-*', 'languages', 'metrics-*'],
            privileges: ['read', 'view_index_metadata'],
          },
        ],
      },
      {
        username: 'emp_only',
        password: 'emp-pass',
        roles: ['emp_reader'],
        cluster: [],
        indices: [{ names: ['employees'], privileges: ['read'] }],
      },
      {
        username: 'meta_only',
        password: 'meta-pass',
        roles: ['meta'],
        cluster: [],
        indices: [{ names: ['*'], privileges: ['view_index_metadata'] }],
      },
      {
        username: 'monitor',
        password: 'monitor-pass',
        roles: ['monitoring'],
        cluster: ['monitor'],
        indices: [],
      },
    ],
    api_keys: [
      {
        id: 'read-key',
        api_key: 'read-secret',
        name: 'recommended',
        username: 'elastic',
        cluster: [],
        indices: [{ names: ['*'], privileges: ['read', 'view_index_metadata'] }],
      },
      {
        id: 'emp-key',
        api_key: 'emp-secret',
        name: 'employees only',
        username: 'elastic',
        cluster: [],
        indices: [{ names: ['employees'], privileges: ['read', 'view_index_metadata'] }],
      },
      {
        id: 'admin-key',
        api_key: 'admin-secret',
        name: 'admin',
        username: 'elastic',
        cluster: ['all'],
        indices: [{ names: ['*'], privileges: ['all'] }],
      },
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// weblogs
// ---------------------------------------------------------------------------------------------

const PATHS = [
  '/',
  '/index.html',
  '/products',
  '/products/42',
  '/cart',
  '/checkout',
  '/api/v1/search',
  '/api/v1/items',
  '/login',
  '/static/app.js',
  '/static/style.css',
  '/blog/esql-intro',
];
const METHODS = ['GET', 'GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'curl/8.5.0',
  'Googlebot/2.1 (+http://www.google.com/bot.html)',
];
const GEOS = [
  {
    country_iso_code: 'US',
    country_name: 'United States',
    city_name: 'New York',
    location: { lat: 40.7128, lon: -74.006 },
  },
  {
    country_iso_code: 'US',
    country_name: 'United States',
    city_name: 'San Francisco',
    location: { lat: 37.7749, lon: -122.4194 },
  },
  {
    country_iso_code: 'FR',
    country_name: 'France',
    city_name: 'Paris',
    location: { lat: 48.8566, lon: 2.3522 },
  },
  {
    country_iso_code: 'DE',
    country_name: 'Germany',
    city_name: 'Berlin',
    location: { lat: 52.52, lon: 13.405 },
  },
  {
    country_iso_code: 'JP',
    country_name: 'Japan',
    city_name: 'Tokyo',
    location: { lat: 35.6762, lon: 139.6503 },
  },
  {
    country_iso_code: 'BR',
    country_name: 'Brazil',
    city_name: 'São Paulo',
    location: { lat: -23.5505, lon: -46.6333 },
  },
  {
    country_iso_code: 'IN',
    country_name: 'India',
    city_name: 'Mumbai',
    location: { lat: 19.076, lon: 72.8777 },
  },
];
const USERS = Array.from({ length: 40 }, (_, i) => ({
  id: `u${String(i + 1).padStart(3, '0')}`,
  name: `${FIRST[i % 20]} ${LAST[(i * 3) % 20]}`,
  plan: ['free', 'free', 'pro', 'enterprise'][i % 4],
}));

function weblogs(): unknown[] {
  const r = seededRandom(20240101);
  const docs: unknown[] = [];
  const start = Date.UTC(2024, 0, 1);
  const end = Date.UTC(2024, 6, 1);
  const n = 2400;
  for (let i = 0; i < n; i++) {
    const t = start + Math.floor(((end - start) / n) * i + r() * ((end - start) / n));
    const path = PATHS[Math.floor(r() * PATHS.length)] as string;
    const method = path.startsWith('/static') ? 'GET' : (METHODS[Math.floor(r() * METHODS.length)] as string);
    const x = r();
    const status = x < 0.8 ? 200 : x < 0.86 ? 304 : x < 0.93 ? 404 : x < 0.97 ? 500 : x < 0.99 ? 401 : 503;
    const geo = GEOS[Math.floor(r() * GEOS.length)] as (typeof GEOS)[number];
    const anonymous = r() < 0.35;
    const user = USERS[Math.floor(r() * USERS.length)] as (typeof USERS)[number];
    const agent = AGENTS[Math.floor(r() * AGENTS.length)] as string;
    const bytes = status === 304 ? 0 : Math.floor(200 + r() * (path.startsWith('/static') ? 90000 : 15000));
    const durationMs = Math.round((5 + r() * r() * (status >= 500 ? 3000 : 400)) * 1000) / 1000;
    const ip = `${[23, 54, 81, 104, 151, 185, 203][i % 7]}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`;
    const query = path === '/api/v1/search' ? `?q=${['shoes', 'hat', 'esql', 'laptop'][i % 4]}` : '';
    const doc: Record<string, unknown> = {
      '@timestamp': iso(t),
      http: {
        request: { method, referrer: r() < 0.5 ? 'https://www.example.com/' : null },
        response: { status_code: status, body: { bytes } },
        version: r() < 0.7 ? '1.1' : '2.0',
      },
      url: { path, original: path + query },
      client: { ip },
      user_agent: { original: agent, name: agent.split('/')[0] },
      geo: { ...geo },
      event: { duration: Math.round(durationMs * 1e6), outcome: status >= 400 ? 'failure' : 'success' },
      message: `${ip} - ${anonymous ? '-' : user.id} "${method} ${path}${query} HTTP/1.1" ${status} ${bytes}`,
      request_headers: [
        { name: 'accept', value: path.startsWith('/api') ? 'application/json' : 'text/html' },
        { name: 'accept-language', value: ['en-US', 'fr-FR', 'de-DE', 'ja-JP'][i % 4] },
      ],
    };
    if (!anonymous) doc.user = { id: user.id, name: user.name, plan: user.plan };
    const tags: string[] = [];
    if (status >= 500) tags.push('error');
    if (durationMs > 300) tags.push('slow');
    if (agent.includes('bot')) tags.push('bot');
    if (tags.length > 0) doc.tags = tags.length === 1 ? tags[0] : tags;
    docs.push(doc);
  }
  return docs;
}

const WEBLOGS_MAPPING = {
  properties: {
    '@timestamp': { type: 'date' },
    http: {
      properties: {
        request: { properties: { method: { type: 'keyword' }, referrer: { type: 'keyword' } } },
        response: {
          properties: { status_code: { type: 'short' }, body: { properties: { bytes: { type: 'long' } } } },
        },
        version: { type: 'keyword' },
      },
    },
    url: { properties: { path: { type: 'keyword' }, original: { type: 'wildcard' } } },
    client: { properties: { ip: { type: 'ip' } } },
    user_agent: {
      properties: {
        original: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 1024 } } },
        name: { type: 'keyword' },
      },
    },
    geo: {
      properties: {
        country_iso_code: { type: 'keyword' },
        country_name: { type: 'keyword' },
        city_name: { type: 'keyword' },
        location: { type: 'geo_point' },
      },
    },
    user: {
      properties: {
        id: { type: 'keyword' },
        name: { type: 'text', fields: { keyword: { type: 'keyword' } } },
        plan: { type: 'keyword' },
      },
    },
    event: { properties: { duration: { type: 'long' }, outcome: { type: 'keyword' } } },
    message: { type: 'match_only_text' },
    tags: { type: 'keyword' },
    request_headers: {
      type: 'nested',
      properties: { name: { type: 'keyword' }, value: { type: 'keyword' } },
    },
  },
};

function generateWeblogs(): void {
  const dir = join(root, 'weblogs');
  writeIndex(dir, 'weblogs', WEBLOGS_MAPPING, weblogs());
  writeJson(join(dir, 'aliases.json'), { web: ['weblogs'] });
  writeJson(join(dir, 'security.json'), {
    users: [
      {
        username: 'elastic',
        password: 'changeme',
        roles: ['superuser'],
        cluster: ['all'],
        indices: [{ names: ['*'], privileges: ['all'] }],
      },
      {
        username: 'analyst',
        password: 'analyst-pass',
        roles: ['analyst'],
        cluster: [],
        indices: [{ names: ['weblogs', 'web'], privileges: ['read', 'view_index_metadata'] }],
      },
    ],
    api_keys: [
      {
        id: 'weblogs-key',
        api_key: 'weblogs-secret',
        name: 'weblogs read',
        username: 'elastic',
        cluster: [],
        indices: [{ names: ['weblogs', 'web'], privileges: ['read', 'view_index_metadata'] }],
      },
    ],
  });
}

generateEsTest();
generateWeblogs();
console.log(`fixtures written under ${root}`);
