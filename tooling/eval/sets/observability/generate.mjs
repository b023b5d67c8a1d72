// Deterministic generator for the "observability" evaluation set.
// Writes fixture/ (stand-in Elasticsearch cluster fixture): fourteen daily indices
// app-logs-2025.03.01 .. app-logs-2025.03.14, the alias "app-logs" and security.json.
// Plain Node ESM, no dependencies, seeded PRNG, no clock reads.
//
//   node generate.mjs
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'fixture');

// ---------------------------------------------------------------- PRNG
function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20250314);
const chance = (p) => rand() < p;
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
function pickW(items) {
  // items: [[value, weight], ...]
  let total = 0;
  for (const [, w] of items) total += w;
  let r = rand() * total;
  for (const [v, w] of items) {
    r -= w;
    if (r < 0) return v;
  }
  return items[items.length - 1][0];
}
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
function gauss() {
  let u = 0;
  let v = 0;
  while (u === 0) u = rand();
  while (v === 0) v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
const lognormal = (median, sigma) => median * Math.exp(sigma * gauss());
const hex = (n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rand() * 16)];
  return s;
};

// ---------------------------------------------------------------- time
const DAY_MS = 86400000;
const START = Date.UTC(2025, 2, 1); // 2025-03-01T00:00:00Z (a Saturday)
const NOW = Date.UTC(2025, 2, 14, 18, 0, 0); // set's "now"
const iso = (ms) => new Date(ms).toISOString();
const dayName = (d) => `app-logs-2025.03.${String(d + 1).padStart(2, '0')}`;

// ---------------------------------------------------------------- entities
const ORGS = [
  ['Acme Corp', 18], ['Globex Industries', 12], ['Northwind Traders', 10], ['Blue Harbor Logistics', 8],
  ['Initech', 7], ['Vandelay Imports', 6], ['Stark Analytics', 5], ['Wayne Retail Group', 5],
  ['Umbrella Health', 4], ['Tyrell Systems', 4], ['Oceanic Airlines', 3], ['Dunder Mifflin Paper', 3],
  ['Pied Piper', 2], ['Soylent Foods', 2], ['Cyberdyne Labs', 1.5], ['Monarch Solutions', 1],
  ['Gringotts Bank', 0.6], ['Hooli', 0.4],
];
// Users: ids user-1001.. with an organization and a signup date over the two years before "now".
const USERS = [];
for (let i = 0; i < 420; i++) {
  const org = pickW(ORGS);
  // signup dates skewed towards recent months
  const daysAgo = Math.floor(Math.pow(rand(), 1.6) * 730) + 3;
  const created = Date.UTC(2025, 2, 14) - daysAgo * DAY_MS + randInt(0, DAY_MS / 1000 - 1) * 1000;
  USERS.push({ id: `user-${1001 + i}`, org, created: iso(created), weight: 1 / Math.pow(i + 1, 0.9) });
}
const USER_W = USERS.map((u) => [u, u.weight]);

// Services: hosts (name, region, weight, colour), versions over time, request paths.
const SERVICES = {
  'api-gateway': {
    weight: 0.27, median: 38, p5: 0.012, p4: 0.07, anon: 0.3, internal: 0.22,
    hosts: [['gw-prod-01', 'us-east-1', 4, 'blue'], ['gw-prod-02', 'us-east-1', 4, 'green'], ['gw-prod-eu-01', 'eu-west-1', 3, 'blue']],
    versions: [[0, '3.12.0'], [Date.UTC(2025, 2, 9, 9), '3.12.1']],
    paths: [['/api/v1/products', 30], ['/api/v1/search', 22], ['/api/v1/cart', 14], ['/api/v1/checkout', 8], ['/api/v1/orders', 8], ['/api/v1/login', 7], ['/healthz', 6], ['/api/v1/products/reviews', 5]],
    errors: [['UpstreamUnavailable', 5], ['GatewayTimeout', 4], ['RateLimiterFailure', 1]],
  },
  'auth-service': {
    weight: 0.1, median: 22, p5: 0.01, p4: 0.16, anon: 0.12, internal: 0.25,
    hosts: [['auth-prod-01', 'us-east-1', 1, 'blue'], ['auth-prod-02', 'eu-west-1', 1, 'green']],
    versions: [[0, '1.8.4']],
    paths: [['/auth/login', 45], ['/auth/token/refresh', 40], ['/auth/logout', 10], ['/auth/password/reset', 5]],
    errors: [['TokenSigningError', 3], ['DatabaseConnectionError', 2]],
  },
  'checkout-service': {
    weight: 0.11, median: 115, p5: 0.022, p4: 0.06, anon: 0.0, internal: 0.28,
    hosts: [['checkout-prod-01', 'us-east-1', 3, 'blue'], ['checkout-prod-02', 'us-east-1', 3, 'green'], ['checkout-prod-eu-01', 'eu-west-1', 2, 'blue']],
    versions: [[0, '2.3.1'], [Date.UTC(2025, 2, 6, 10), '2.4.0']],
    paths: [['/api/v1/checkout', 40], ['/api/v1/cart', 30], ['/api/v1/cart/items', 30]],
    errors: [['NullPointerException', 3], ['InventoryReservationFailed', 3], ['DatabaseDeadlock', 1]],
  },
  'payment-service': {
    weight: 0.09, median: 290, p5: 0.02, p4: 0.09, anon: 0.0, internal: 0.25,
    hosts: [['pay-prod-01', 'us-east-1', 1, 'blue'], ['pay-prod-02', 'us-east-1', 1, 'green']],
    versions: [[0, '5.0.2'], [Date.UTC(2025, 2, 12, 8), '5.1.0']],
    paths: [['/payments/charge', 80], ['/payments/refund', 12], ['/payments/methods', 8]],
    errors: [['TimeoutException', 4], ['PaymentProviderError', 3], ['CardDeclined', 0]],
  },
  'inventory-service': {
    weight: 0.1, median: 14, p5: 0.015, p4: 0.04, anon: 0.0, internal: 0.3,
    hosts: [['inv-prod-01', 'us-east-1', 1, 'blue'], ['inv-prod-02', 'us-west-2', 1, 'green']],
    versions: [[0, '4.2.0']],
    paths: [['/inventory/stock', 60], ['/inventory/reserve', 30], ['/inventory/release', 10]],
    errors: [['DatabaseDeadlock', 4], ['StockMismatch', 2]],
  },
  'search-service': {
    weight: 0.16, median: 75, p5: 0.008, p4: 0.03, anon: 0.45, internal: 0.2,
    hosts: [['search-prod-01', 'us-east-1', 3, 'blue'], ['search-prod-02', 'us-east-1', 3, 'green'], ['search-prod-03', 'eu-west-1', 2, 'blue'], ['search-prod-apac-01', 'ap-southeast-2', 1, 'blue']],
    versions: [[0, '7.4.2'], [Date.UTC(2025, 2, 4, 15), '7.5.0']],
    paths: [['/api/v1/search', 70], ['/api/v1/search/suggest', 30]],
    errors: [['IndexUnavailable', 2], ['QueryParseError', 3]],
  },
  'notification-service': {
    weight: 0.08, median: 480, p5: 0, p4: 0, anon: 0.0, internal: 0.25, worker: true,
    hosts: [['notify-worker-01', 'us-east-1', 1, 'blue'], ['notify-worker-02', 'eu-west-1', 1, 'green']],
    versions: [[0, '2.0.7']],
    paths: [],
    errors: [['ProviderError', 3], ['TemplateRenderError', 1]],
  },
  'recommendation-engine': {
    weight: 0.07, median: 190, p5: 0.03, p4: 0.01, anon: 0.25, internal: 0.25,
    hosts: [['reco-prod-01', 'us-west-2', 2, 'blue'], ['reco-gpu-01', 'us-west-2', 1, 'green']],
    versions: [[0, '0.9.3'], [Date.UTC(2025, 2, 10, 13), '0.9.4']],
    paths: [['/recommendations/home', 60], ['/recommendations/similar', 40]],
    errors: [['ModelNotLoaded', 2], ['FeatureStoreTimeout', 3]],
  },
  // decommissioned on 2025-03-04: logs only during the first four days
  'legacy-billing': {
    weight: 0.035, median: 650, p5: 0.05, p4: 0.05, anon: 0.0, internal: 0.35, until: Date.UTC(2025, 2, 4, 12),
    hosts: [['billing-old-01', 'us-east-1', 1, 'blue']],
    versions: [[0, '0.14.9']],
    paths: [['/billing/invoices', 70], ['/billing/invoices/pdf', 30]],
    errors: [['SoapFault', 3], ['DatabaseConnectionError', 1]],
  },
};

const METHODS_BY_PATH = (path) => {
  if (path === '/healthz') return [['GET', 1]];
  if (path.startsWith('/api/v1/checkout') || path === '/payments/charge' || path === '/payments/refund' || path === '/auth/login' || path === '/auth/token/refresh' || path === '/auth/password/reset' || path === '/inventory/reserve' || path === '/inventory/release') return [['POST', 10], ['GET', 0.3]];
  if (path === '/auth/logout') return [['POST', 1]];
  if (path === '/api/v1/cart/items') return [['POST', 5], ['DELETE', 3], ['PATCH', 2], ['GET', 1]];
  if (path === '/api/v1/cart') return [['GET', 6], ['PUT', 2], ['DELETE', 1]];
  if (path === '/api/v1/orders') return [['GET', 8], ['POST', 2]];
  return [['GET', 20], ['POST', 1], ['HEAD', 0.4]];
};

const CLIENT_ERRORS = [
  [400, 'Client error: validation failed', 5],
  [401, 'Client error: invalid credentials', 4],
  [403, 'Client error: access denied', 1.5],
  [404, 'Client error: resource not found', 4],
  [409, 'Client error: conflicting update', 1],
  [429, 'Client error: rate limit exceeded', 2],
];
const SERVER_ERROR_MSG = {
  UpstreamUnavailable: [503, 'Upstream service unavailable'],
  GatewayTimeout: [504, 'Upstream request timed out'],
  RateLimiterFailure: [500, 'Rate limiter backend unreachable'],
  TokenSigningError: [500, 'Failed to sign access token'],
  DatabaseConnectionError: [500, 'Database connection lost'],
  NullPointerException: [500, 'Unhandled exception in request handler'],
  InventoryReservationFailed: [502, 'Inventory reservation failed'],
  DatabaseDeadlock: [500, 'Deadlock detected, transaction rolled back'],
  TimeoutException: [504, 'Timeout calling payment provider'],
  PaymentProviderError: [502, 'Payment provider returned an error'],
  CardDeclined: [402, 'Card declined'],
  StockMismatch: [500, 'Stock level mismatch detected'],
  IndexUnavailable: [503, 'Search index unavailable'],
  QueryParseError: [500, 'Failed to parse search query'],
  ModelNotLoaded: [503, 'Recommendation model not loaded'],
  FeatureStoreTimeout: [504, 'Feature store request timed out'],
  SoapFault: [500, 'SOAP fault from billing backend'],
  ProviderError: [null, 'SMS delivery failed'],
  TemplateRenderError: [null, 'Failed to render notification template'],
};

const SPAN_NAMES = {
  'api-gateway': ['http.proxy', 'auth.verify', 'redis.get'],
  'auth-service': ['postgres.query', 'jwt.sign', 'redis.set'],
  'checkout-service': ['postgres.query', 'http.call inventory-service', 'http.call payment-service', 'redis.get'],
  'payment-service': ['http.call stripe', 'postgres.query', 'kafka.publish'],
  'inventory-service': ['postgres.query', 'redis.get'],
  'search-service': ['elasticsearch.search', 'redis.get'],
  'notification-service': ['smtp.send', 'template.render', 'kafka.consume'],
  'recommendation-engine': ['feature_store.get', 'model.predict'],
  'legacy-billing': ['soap.call', 'oracle.query'],
};

function versionAt(svc, t) {
  let v = svc.versions[0][1];
  for (const [from, ver] of svc.versions) if (t >= from) v = ver;
  return v;
}

function labelsFor(svcName, host, version, t, extra) {
  const labels = [];
  if (chance(0.85)) labels.push('k8s');
  if (chance(0.7)) labels.push(host[3]);
  // checkout 2.4.0 was rolled out as a canary during its first day
  if (svcName === 'checkout-service' && version === '2.4.0' && t < Date.UTC(2025, 2, 7, 10)) labels.push('canary');
  if (svcName === 'recommendation-engine' && version === '0.9.4' && t < Date.UTC(2025, 2, 11, 0)) labels.push('canary');
  if ((svcName === 'checkout-service' || svcName === 'api-gateway') && t >= Date.UTC(2025, 2, 6, 10) && chance(0.35)) labels.push('feature:new-checkout');
  for (const l of extra) labels.push(l);
  return labels;
}

function spansFor(svcName, totalMs, failed) {
  const names = SPAN_NAMES[svcName];
  const n = randInt(1, Math.min(3, names.length));
  const spans = [];
  let left = totalMs * 1000 * 0.9;
  for (let i = 0; i < n; i++) {
    const d = Math.max(50, Math.round(left * (i === n - 1 ? 1 : rand() * 0.7)));
    left = Math.max(0, left - d);
    spans.push({ name: names[i % names.length], duration_us: d, status: failed && i === n - 1 ? 'error' : 'ok' });
  }
  return spans;
}

// ---------------------------------------------------------------- documents
const docsByDay = Array.from({ length: 14 }, () => []);

function makeDoc(t, svcName, opts = {}) {
  const svc = SERVICES[svcName];
  const host = opts.host || pickW(svc.hosts.map((h) => [h, h[2]]));
  const version = versionAt(svc, t);
  const doc = {
    '@timestamp': iso(t),
    service: { name: svcName, version, environment: 'production' },
    host: { name: host[0] },
    cloud: { region: host[1] },
    log: { level: 'info', logger: null },
    message: '',
    trace: { id: hex(32) },
  };
  const extraLabels = [];
  const internal = opts.kind ? opts.kind === 'internal' : chance(svc.internal);

  if (svc.worker) {
    // queue consumer: no HTTP fields
    const user = pickW(USER_W);
    doc.user = { id: user.id, created: user.created };
    doc.organization = { name: user.org };
    doc.log.logger = 'notification.worker';
    let ms = lognormal(svc.median, 0.7);
    if (internal) {
      const r = rand();
      if (r < 0.6) { doc.log.level = 'debug'; doc.message = 'Template rendered'; }
      else if (r < 0.85) { doc.log.level = 'info'; doc.message = 'Consumer lag within threshold'; delete doc.user; delete doc.organization; }
      else { doc.log.level = 'warn'; doc.message = 'SMS provider slow to respond'; ms *= 6; }
    } else {
      const r = rand();
      const channel = pickW([['email', 6], ['push', 3], ['sms', 1]]);
      extraLabels.push(`channel:${channel}`);
      if (r < 0.035 || opts.forceError) {
        const et = pickW(svc.errors);
        doc.log.level = 'error';
        doc.error = { type: et };
        doc.message = SERVER_ERROR_MSG[et][1];
      } else {
        doc.message = channel === 'email' ? 'Email sent' : channel === 'push' ? 'Push notification delivered' : 'SMS sent';
      }
    }
    doc.event = { duration: Math.round(ms * 1e6) + randInt(0, 999) };
    doc.spans = spansFor(svcName, ms, !!doc.error);
    doc.labels = labelsFor(svcName, host, version, t, extraLabels);
    return doc;
  }

  if (internal && !opts.forceError && !opts.forceRequest) {
    doc.log.logger = `${svcName.replace(/-/g, '.')}.internal`;
    const r = rand();
    if (r < 0.5) {
      doc.log.level = 'debug';
      doc.message = pickW([[`Cache hit for key product:${randInt(1000, 9999)}`, 3], [`Cache miss for key product:${randInt(1000, 9999)}`, 2], ['Connection pool stats collected', 2], ['Health check passed', 3]]);
      if (doc.message.startsWith('Cache miss')) extraLabels.push('cache-miss');
    } else if (r < 0.78) {
      doc.log.level = 'info';
      doc.message = pickW([['Config reloaded', 1], ['Scheduled job completed', 2], ['Feature flags refreshed', 2], ['Kafka consumer rebalanced', 1]]);
    } else if (r < 0.96) {
      doc.log.level = 'warn';
      doc.message = pickW([['Slow query detected', 3], ['Retrying call to downstream service', 3], ['Circuit breaker half-open', 1], ['Disk usage above 80%', 1], ['Deprecated API version used by client', 1]]);
      if (doc.message.startsWith('Retrying')) extraLabels.push('retry');
      if (doc.message === 'Slow query detected') doc.event = { duration: Math.round(lognormal(1800, 0.5) * 1e6) };
    } else {
      doc.log.level = 'error';
      const et = pickW(svc.errors.filter(([e]) => e !== 'CardDeclined'));
      doc.error = { type: et };
      doc.message = `Background task failed: ${SERVER_ERROR_MSG[et][1].toLowerCase()}`;
    }
    doc.labels = labelsFor(svcName, host, version, t, extraLabels);
    if (doc.labels.length === 0) delete doc.labels;
    return doc;
  }

  // request log
  doc.log.logger = `${svcName.replace(/-/g, '.')}.http`;
  const path = opts.path || pickW(svc.paths);
  const method = pickW(METHODS_BY_PATH(path));
  let ms = lognormal(svc.median, 0.55);
  if (chance(0.04)) ms *= randInt(5, 15); // slow tail
  if (path === '/healthz') ms = lognormal(2, 0.3);
  if (svcName === 'checkout-service' && version === '2.4.0') ms *= 1.35;
  let status = method === 'POST' && chance(0.5) && path !== '/auth/login' && path !== '/auth/token/refresh' ? 201 : 200;
  if (method === 'DELETE') status = 204;
  if (method === 'GET' && path.startsWith('/api/v1/products') && chance(0.08)) status = 304;
  let p5 = svc.p5;
  if (svcName === 'checkout-service' && version === '2.4.0') p5 = 0.07;
  if (opts.forceError) p5 = 1;
  const u = rand();
  let errType = null;
  if (u < p5) {
    errType = opts.errorType || pickW(svc.errors);
    status = SERVER_ERROR_MSG[errType][0];
  } else if (u < p5 + svc.p4 && path !== '/healthz') {
    let ce = pickW(CLIENT_ERRORS.map((c) => [c, c[2]]));
    if (path.startsWith('/auth/login') && chance(0.7)) ce = CLIENT_ERRORS[1];
    if (svcName === 'payment-service' && chance(0.6)) { status = 402; doc.message = 'Card declined'; }
    else { status = ce[0]; doc.message = ce[1]; }
    ms *= 0.4;
  }
  if (errType) {
    doc.log.level = 'error';
    doc.error = { type: errType };
    doc.message = SERVER_ERROR_MSG[errType][1];
    if (errType === 'TimeoutException' || errType === 'GatewayTimeout' || errType === 'FeatureStoreTimeout') ms = opts.timeoutMs || lognormal(10000, 0.15);
  } else if (status >= 400) {
    doc.log.level = status === 404 ? 'info' : 'warn';
  } else {
    doc.log.level = chance(0.04) ? 'debug' : 'info';
    doc.message = 'Request completed';
    if (ms > svc.median * 6) { doc.log.level = 'warn'; doc.message = 'Slow request'; }
    if (svcName === 'payment-service' && path === '/payments/charge' && method === 'POST') {
      doc.message = 'Payment captured';
      const currency = pickW([['USD', 70], ['EUR', 20], ['GBP', 10]]);
      let amount = Math.round(lognormal(64, 0.9) * 100) / 100;
      if (chance(0.02)) amount = Math.round(randInt(1500, 9000) * 100 + randInt(0, 99)) / 100;
      doc.payment = { amount, currency };
    }
    if (svcName === 'payment-service' && path === '/payments/refund' && method === 'POST') {
      doc.message = 'Refund issued';
      doc.payment = { amount: -Math.round(lognormal(45, 0.8) * 100) / 100, currency: pickW([['USD', 70], ['EUR', 20], ['GBP', 10]]) };
    }
  }
  doc.http = { request: { method }, response: { status_code: status } };
  if (method !== 'HEAD' && status !== 204 && status !== 304) {
    let bytes = Math.round(lognormal(path.includes('search') || path.includes('products') || path.includes('recommendations') ? 14000 : 900, 0.8));
    if (path === '/healthz') bytes = 2;
    if (path === '/billing/invoices/pdf' && status < 400) bytes = Math.round(lognormal(180000, 0.4));
    doc.http.response.body = { bytes };
  }
  doc.url = { path };
  doc.event = { duration: Math.round(ms * 1e6) + randInt(0, 999) };
  const anon = path === '/healthz' || path === '/auth/login' || path === '/auth/password/reset' || chance(svc.anon);
  if (!anon) {
    const user = pickW(USER_W);
    doc.user = { id: user.id, created: user.created };
    doc.organization = { name: user.org };
  }
  if (status >= 500 && chance(0.3)) extraLabels.push('retry');
  doc.labels = labelsFor(svcName, host, version, t, extraLabels);
  if (doc.labels.length === 0) delete doc.labels;
  if (path !== '/healthz') doc.spans = spansFor(svcName, ms, !!errType);
  return doc;
}

// hourly traffic shape (UTC): EU morning + US afternoon peak
const HOUR_W = [0.35, 0.3, 0.25, 0.25, 0.3, 0.4, 0.55, 0.75, 0.95, 1.1, 1.2, 1.25, 1.3, 1.4, 1.55, 1.65, 1.6, 1.5, 1.35, 1.2, 1.0, 0.8, 0.6, 0.45];
const HOUR_SUM = HOUR_W.reduce((a, b) => a + b, 0);

for (let d = 0; d < 14; d++) {
  const dayStart = START + d * DAY_MS;
  const dow = new Date(dayStart).getUTCDay();
  const weekend = dow === 0 || dow === 6;
  const base = weekend ? 190 : 330 + d * 3; // slight growth over the fortnight
  for (let h = 0; h < 24; h++) {
    const hourStart = dayStart + h * 3600000;
    if (hourStart >= NOW) break;
    const expected = (base * HOUR_W[h]) / HOUR_SUM;
    const n = Math.floor(expected + rand());
    for (let i = 0; i < n; i++) {
      const t = hourStart + Math.floor(rand() * 3600000);
      const candidates = Object.entries(SERVICES).filter(([, s]) => !s.until || t < s.until).map(([name, s]) => [name, s.weight]);
      const svcName = pickW(candidates);
      docsByDay[d].push(makeDoc(t, svcName));
    }
  }
}

// Incident: 2025-03-11 14:05-16:20 UTC, the payment provider times out.
{
  const d = 10;
  const from = Date.UTC(2025, 2, 11, 14, 5);
  const to = Date.UTC(2025, 2, 11, 16, 20);
  for (let i = 0; i < 70; i++) {
    const t = from + Math.floor(rand() * (to - from));
    docsByDay[d].push(makeDoc(t, 'payment-service', { kind: 'request', forceError: true, errorType: 'TimeoutException', path: '/payments/charge', timeoutMs: 30000 + randInt(0, 400) }));
  }
  for (let i = 0; i < 30; i++) {
    const t = from + Math.floor(rand() * (to - from));
    docsByDay[d].push(makeDoc(t, 'api-gateway', { kind: 'request', forceError: true, errorType: 'GatewayTimeout', path: '/api/v1/checkout', timeoutMs: 30000 + randInt(200, 900) }));
  }
  for (let i = 0; i < 12; i++) {
    const t = from + Math.floor(rand() * (to - from));
    docsByDay[d].push(makeDoc(t, 'checkout-service', { kind: 'request', forceError: true, errorType: 'InventoryReservationFailed', path: '/api/v1/checkout' }));
  }
  // two fatals when pay-prod-02 ran out of worker threads
  for (const t of [Date.UTC(2025, 2, 11, 15, 12, 7), Date.UTC(2025, 2, 11, 15, 48, 41)]) {
    const doc = makeDoc(t, 'payment-service', { kind: 'internal', host: ['pay-prod-02', 'us-east-1', 1, 'green'] });
    doc.log.level = 'fatal';
    doc.error = { type: 'ThreadPoolExhausted' };
    doc.message = 'Unrecoverable error, shutting down';
    delete doc.event;
    docsByDay[d].push(doc);
  }
}
// OutOfMemory fatals on the GPU recommendation host
for (const t of [Date.UTC(2025, 2, 3, 2, 14, 55), Date.UTC(2025, 2, 8, 23, 40, 2), Date.UTC(2025, 2, 13, 4, 1, 30)]) {
  const d = Math.floor((t - START) / DAY_MS);
  const doc = makeDoc(t, 'recommendation-engine', { kind: 'internal', host: ['reco-gpu-01', 'us-west-2', 1, 'green'] });
  doc.log.level = 'fatal';
  doc.error = { type: 'OutOfMemoryError' };
  doc.message = 'OutOfMemoryError: Java heap space';
  delete doc.event;
  docsByDay[d].push(doc);
}
// one fatal on legacy-billing before its shutdown
{
  const t = Date.UTC(2025, 2, 2, 6, 30, 0);
  const doc = makeDoc(t, 'legacy-billing', { kind: 'internal' });
  doc.log.level = 'fatal';
  doc.error = { type: 'DatabaseConnectionError' };
  doc.message = 'Unrecoverable error, shutting down';
  delete doc.event;
  docsByDay[1].push(doc);
}

// ---------------------------------------------------------------- mappings
const keyword = { type: 'keyword' };
function mapping(bytesType) {
  return {
    properties: {
      '@timestamp': { type: 'date' },
      service: { properties: { name: keyword, version: keyword, environment: keyword } },
      host: { properties: { name: keyword } },
      cloud: { properties: { region: keyword } },
      log: { properties: { level: keyword, logger: keyword } },
      message: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      trace: { properties: { id: keyword } },
      http: {
        properties: {
          request: { properties: { method: keyword } },
          response: { properties: { status_code: { type: 'long' }, body: { properties: { bytes: { type: bytesType } } } } },
        },
      },
      url: { properties: { path: keyword } },
      event: { properties: { duration: { type: 'long' } } },
      user: { properties: { id: keyword, created: { type: 'date' } } },
      organization: { properties: { name: keyword } },
      error: { properties: { type: keyword } },
      labels: keyword,
      payment: { properties: { amount: { type: 'scaled_float', scaling_factor: 100 }, currency: keyword } },
      spans: { type: 'nested', properties: { name: keyword, duration_us: { type: 'long' }, status: keyword } },
    },
  };
}

// ---------------------------------------------------------------- write
rmSync(OUT, { recursive: true, force: true });
const names = [];
let total = 0;
for (let d = 0; d < 14; d++) {
  const name = dayName(d);
  names.push(name);
  const docs = docsByDay[d].sort((a, b) => (a['@timestamp'] < b['@timestamp'] ? -1 : a['@timestamp'] > b['@timestamp'] ? 1 : 0));
  // a log-shipper misconfiguration on 03.05 and 03.06 mapped the response size as keyword
  const conflict = d === 4 || d === 5;
  const dir = join(OUT, 'indices', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mapping.json'), JSON.stringify(mapping(conflict ? 'keyword' : 'long'), null, 2) + '\n');
  const lines = docs.map((doc) => {
    if (doc.log.logger === null) delete doc.log.logger;
    if (conflict && doc.http?.response?.body) doc.http.response.body.bytes = String(doc.http.response.body.bytes);
    return JSON.stringify(doc);
  });
  writeFileSync(join(dir, 'docs.ndjson'), lines.join('\n') + '\n');
  total += docs.length;
}
writeFileSync(join(OUT, 'aliases.json'), JSON.stringify({ 'app-logs': names }, null, 2) + '\n');
writeFileSync(
  join(OUT, 'security.json'),
  JSON.stringify(
    {
      users: [
        { username: 'elastic', password: 'changeme', roles: ['superuser'], cluster: ['all'], indices: [{ names: ['*'], privileges: ['all'] }] },
      ],
    },
    null,
    2,
  ) + '\n',
);
console.log(`wrote ${total} documents in ${names.length} indices to ${OUT}`);
for (let d = 0; d < 14; d++) console.log(`  ${dayName(d)}: ${docsByDay[d].length}`);
