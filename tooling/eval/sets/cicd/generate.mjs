// Deterministic generator for the "cicd" evaluation set fixture (stand-in Elasticsearch format).
// Plain Node ESM: no npm packages, no clock reads, no network. Run: node generate.mjs
// Writes fixture/indices/<index>/{mapping.json,docs.ndjson} and fixture/aliases.json next to this file.
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'fixture');

// ---------- seeded PRNG ----------
function mulberry32(a) {
  return function () {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20250820);
const chance = (p) => rand() < p;
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
function weighted(items, w = (x) => x.w) {
  let total = 0;
  for (const it of items) total += w(it);
  let r = rand() * total;
  for (const it of items) { r -= w(it); if (r <= 0) return it; }
  return items[items.length - 1];
}
function normal() {
  let u = 0, v = 0;
  while (u === 0) u = rand();
  while (v === 0) v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
const lognormal = (median, sigma) => median * Math.exp(sigma * normal());
function poisson(lambda) {
  const L = Math.exp(-lambda);
  let k = 0, p = 1;
  do { k++; p *= rand(); } while (p > L);
  return k - 1;
}
const hex = (n) => { let s = ''; for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rand() * 16)]; return s; };

// ---------- time ----------
const NOW = Date.parse('2025-08-20T12:00:00Z');
const HOUR = 3600e3, DAY = 24 * HOUR, MIN = 60e3;
const RUNS_START = Date.parse('2025-06-02T00:00:00Z'); // Monday of ISO week 23
const ISO_W1_2025 = Date.parse('2024-12-30T00:00:00Z');
const isoWeek = (t) => Math.floor((t - ISO_W1_2025) / (7 * DAY)) + 1;
const iso = (t) => new Date(t).toISOString();

// ---------- entities ----------
const TEAMS = ['web', 'platform', 'payments', 'identity', 'mobile', 'data'];
// repo: weight, team, median duration (min), failure rate, runner os/type mix, service it deploys (if any)
const REPOS = [
  { name: 'web-app', w: 22, team: 'web', dur: 6, fail: 0.10, os: { linux: 1 }, selfHosted: 0.0, service: 'web-frontend', nightly: true },
  { name: 'api-gateway', w: 16, team: 'platform', dur: 8, fail: 0.08, os: { linux: 1 }, selfHosted: 0.3, service: 'api-gateway', nightly: true },
  { name: 'payments-service', w: 12, team: 'payments', dur: 12, fail: 0.12, os: { linux: 1 }, selfHosted: 0.6, service: 'payments-api' },
  { name: 'payments-svc', w: 1.2, team: 'payments', dur: 10, fail: 0.2, os: { linux: 1 }, selfHosted: 0.6, service: null, until: Date.parse('2025-06-20T00:00:00Z') },
  { name: 'auth-service', w: 9, team: 'identity', dur: 7, fail: 0.07, os: { linux: 1 }, selfHosted: 0.2, service: 'auth' },
  { name: 'mobile-ios', w: 8, team: 'mobile', dur: 22, fail: 0.18, os: { macos: 1 }, selfHosted: 0.0, service: null },
  { name: 'mobile-android', w: 8, team: 'mobile', dur: 16, fail: 0.14, os: { linux: 1 }, selfHosted: 0.0, service: null },
  { name: 'data-pipeline', w: 6, team: 'data', dur: 25, fail: 0.15, os: { linux: 1 }, selfHosted: 0.9, service: 'etl-scheduler', nightly: true },
  { name: 'infra-terraform', w: 5, team: 'platform', dur: 4, fail: 0.09, os: { linux: 1 }, selfHosted: 1.0, service: null },
  { name: 'search-service', w: 5, team: 'platform', dur: 9, fail: 0.06, os: { linux: 1 }, selfHosted: 0.0, service: 'search' },
  { name: 'notification-service', w: 4, team: 'platform', dur: 5, fail: 0.05, os: { linux: 1 }, selfHosted: 0.0, service: 'notifier' },
  { name: 'billing-service', w: 3, team: 'payments', dur: 10, fail: 0.11, os: { linux: 1 }, selfHosted: 0.5, service: 'billing', stagingOnly: true },
  { name: 'desktop-client', w: 3, team: 'web', dur: 18, fail: 0.2, os: { windows: 0.8, macos: 0.2 }, selfHosted: 0.0, service: null },
  { name: 'docs-site', w: 2, team: 'web', dur: 2, fail: 0.03, os: { linux: 1 }, selfHosted: 0.0, service: 'docs', prodOnly: true },
  { name: 'ml-models', w: 2, team: 'data', dur: 45, fail: 0.22, os: { linux: 1 }, selfHosted: 1.0, service: null, weekly: true },
  { name: 'legacy-reports', w: 0, team: null, dur: 14, fail: 0.3, os: { windows: 1 }, selfHosted: 1.0, service: null, nightly: true, scheduleOnly: true },
];
const repoByName = Object.fromEntries(REPOS.map((r) => [r.name, r]));

// authors: name, team, activity weight (Zipf-like); near-duplicates on purpose
const AUTHORS = [
  ['Maria Garcia', 'payments', 9], ['María García', 'payments', 1.2], ['Alex Chen', 'web', 10], ['Alex Cheng', 'platform', 3],
  ['Priya Patel', 'platform', 8], ['Tom Becker', 'web', 6], ['Sofia Rossi', 'web', 5], ['Kenji Tanaka', 'mobile', 7],
  ['Lena Novak', 'mobile', 4], ['Omar Haddad', 'identity', 6], ['Grace Kim', 'identity', 3], ['Daniel Okafor', 'data', 5],
  ['Eva Lindqvist', 'data', 3], ['Marcus Johnson', 'platform', 4], ['Chloe Martin', 'payments', 4], ['Ravi Kumar', 'payments', 3],
  ['Hannah Schulz', 'web', 2.5], ['Lucas Silva', 'mobile', 2.5], ['Nina Petrova', 'platform', 2], ['Ben Carter', 'web', 1.5],
  ['Aisha Bello', 'data', 1.5], ['Jonas Weber', 'identity', 1.2], ['Olivia Brown', 'web', 1], ['Mateo Fernandez', 'mobile', 0.8],
  ['Yuki Sato', 'platform', 0.5], ['Zoe Adams', 'payments', 0.3],
].map(([name, team, w]) => ({ name, team, w }));
const DEPENDABOT = { name: 'dependabot[bot]', team: null };

const FEATURE_WORDS = ['login', 'checkout', 'cache', 'retry', 'metrics', 'search-index', 'webhooks', 'rate-limit', 'i18n', 'dark-mode', 'export', 'refunds', 'sso', 'push-notif', 'onboarding', 'audit-log', 'pagination', 'tracing'];
const MSG_FEAT = ['add', 'support', 'introduce', 'implement'];
const MSG_FIX = ['handle null', 'fix race in', 'correct timeout for', 'avoid double', 'guard against empty'];
const MSG_NOUNS = ['token refresh', 'payment intent', 'session cookie', 'search query', 'webhook retries', 'export job', 'push payload', 'cache key', 'invoice totals', 'feature flags', 'config loader', 'health check'];
const DEPS = ['lodash', 'axios', 'react', 'express', 'jest', 'eslint', 'typescript', 'pg', 'redis', 'protobufjs'];

function commitMessage(kind, branch, prNo) {
  const noun = pick(MSG_NOUNS);
  if (kind === 'deps') { const d = pick(DEPS); const a = randInt(1, 9), b = randInt(0, 30); return `chore(deps): bump ${d} from ${a}.${b}.0 to ${a}.${b + 1}.0`; }
  if (kind === 'revert') return `Revert "feat: ${pick(MSG_FEAT)} ${noun}"`;
  if (kind === 'merge') return `Merge pull request #${prNo} from ${branch}`;
  if (kind === 'docs') return `docs: update ${pick(['README', 'runbook', 'API reference', 'changelog'])}`;
  if (kind === 'hotfix') return `hotfix: ${pick(MSG_FIX)} ${noun}`;
  if (kind === 'fix') return `fix: ${pick(MSG_FIX)} ${noun}`;
  if (kind === 'test') return `test: add coverage for ${noun}`;
  if (kind === 'refactor') return `refactor: simplify ${noun}`;
  return `feat: ${pick(MSG_FEAT)} ${noun}`;
}

function pickOs(mix) { return weighted(Object.entries(mix).map(([os, w]) => ({ os, w }))).os; }

// ---------- runs ----------
const runs = [];
let runSeq = 0;
let prSeq = 4100;
const nextRunId = () => `run-${String(++runSeq).padStart(5, '0')}`; // assigned after sorting

function hourFactor(h) {
  // UTC; EU + US working hours
  const f = [0.15, 0.1, 0.08, 0.08, 0.1, 0.2, 0.45, 0.8, 1.1, 1.3, 1.35, 1.3, 1.1, 1.25, 1.4, 1.45, 1.4, 1.25, 1.0, 0.85, 0.7, 0.5, 0.35, 0.22];
  return f[h];
}
function dayFactor(t) {
  const dow = new Date(t).getUTCDay(); // 0 Sun
  if (dow === 0) return 0.07;
  if (dow === 6) return 0.1;
  if (dow === 5) return 0.85;
  return 1;
}
function seasonal(t) {
  // summer vacation dip late July - early August; July 4th US holiday
  const d = new Date(t);
  const md = (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
  let f = 1;
  if (md >= 728 && md <= 810) f *= 0.72;
  if (md === 704) f *= 0.5;
  return f;
}
const growth = (t) => 1 + 0.3 * ((t - RUNS_START) / (NOW - RUNS_START));

function makeRun(t, repo, trigger) {
  const r = { t, repo, trigger };
  // author
  if (trigger === 'schedule') r.author = null;
  else {
    let isBot = false;
    if (trigger === 'pull_request' && chance(0.07) && repo.team) isBot = true;
    if (isBot) r.author = DEPENDABOT;
    else {
      const pool = chance(0.82) ? AUTHORS.filter((a) => a.team === repo.team) : AUTHORS;
      r.author = weighted(pool.length ? pool : AUTHORS);
    }
    // a few pushes arrive without author metadata (webhook lost it)
    if (chance(0.012)) r.author = undefined;
  }
  // branch
  const fw = pick(FEATURE_WORDS);
  if (trigger === 'schedule') r.branch = 'main';
  else if (trigger === 'manual') r.branch = chance(0.6) ? 'main' : `release/${randInt(2, 4)}.${randInt(0, 12)}`;
  else if (trigger === 'push') r.branch = chance(0.45) ? 'main' : chance(0.1) ? `hotfix/${fw}` : `${pick(['feature', 'feature', 'fix', 'chore'])}/${fw}-${randInt(100, 999)}`;
  else r.branch = r.author === DEPENDABOT ? `dependabot/npm_and_yarn/${pick(DEPS)}-${randInt(1, 9)}.${randInt(0, 30)}.0` : `${pick(['feature', 'feature', 'fix', 'chore'])}/${fw}-${randInt(100, 999)}`;
  // message
  let kind;
  if (r.author === DEPENDABOT) kind = 'deps';
  else if (r.branch.startsWith('hotfix/')) kind = 'hotfix';
  else if (trigger === 'push' && r.branch === 'main' && chance(0.55)) kind = 'merge';
  else kind = weighted([{ k: 'feat', w: 30 }, { k: 'fix', w: 28 }, { k: 'test', w: 8 }, { k: 'refactor', w: 10 }, { k: 'docs', w: repo.name === 'docs-site' ? 60 : 5 }, { k: 'revert', w: 2.5 }, { k: 'deps', w: 3 }], (x) => x.w).k;
  r.message = trigger === 'schedule' ? `Nightly build (${repo.name})` : commitMessage(kind, r.branch, prSeq++);
  if (trigger === 'schedule' && repo.weekly) r.message = `Weekly model retrain (${repo.name})`;
  if (trigger === 'manual') r.message = chance(0.5) ? `Manual run: ${pick(['redeploy', 're-run release checks', 'rebuild cache', 'smoke tests'])}` : r.message;
  // runner
  r.os = pickOs(repo.os);
  r.runnerType = chance(repo.selfHosted) ? 'self-hosted' : 'hosted';
  // labels (multi-valued keyword on some runs)
  const labels = new Set();
  if (kind === 'deps') { labels.add('dependencies'); if (chance(0.3)) labels.add('security'); }
  if (kind === 'hotfix') labels.add('hotfix');
  if (r.branch.startsWith('release/')) labels.add('release');
  if (chance(0.04)) labels.add('skip-cache');
  if (kind === 'docs') labels.add('docs');
  // status
  let failP = repo.fail;
  if (r.os === 'windows') failP *= 1.2;
  if (kind === 'deps') failP *= 1.4;
  const flaky = (repo.name === 'mobile-ios' || repo.name === 'desktop-client' || repo.name === 'data-pipeline') && chance(0.25);
  if (flaky) { labels.add('flaky'); failP *= 1.6; }
  // a bad week for payments-service (w31): broken integration env
  if (repo.name === 'payments-service' && isoWeek(t) === 31) failP = 0.45;
  const cancelP = trigger === 'pull_request' ? 0.08 : trigger === 'schedule' ? 0.01 : 0.04;
  const u = rand();
  r.status = u < cancelP ? 'cancelled' : u < cancelP + failP ? 'failure' : 'success';
  r.labels = [...labels];
  // durations
  let med = repo.dur * MIN * (1 + 0.12 * ((t - RUNS_START) / (NOW - RUNS_START)));
  if (r.os === 'windows') med *= 1.5;
  if (r.runnerType === 'self-hosted') med *= 0.85;
  if (trigger === 'schedule') med *= 1.3;
  let dur = lognormal(med, 0.35);
  if (r.status === 'failure') dur *= 0.3 + 0.6 * rand();
  if (r.status === 'cancelled') dur *= 0.05 + 0.5 * rand();
  r.duration = Math.max(4000, Math.round(dur));
  if (r.status === 'cancelled' && chance(0.35)) r.duration = null; // cancelled while queued
  // queue wait
  const h = new Date(t).getUTCHours();
  r.queue = r.runnerType === 'hosted' ? Math.round(lognormal(9000, 0.7)) : Math.round(lognormal(40000 * (h >= 8 && h <= 17 ? 3 : 1), 0.9));
  // tests
  const noTests = ['infra-terraform', 'docs-site', 'legacy-reports'].includes(repo.name);
  if (!noTests && !(r.status === 'cancelled' && r.duration === null)) {
    const base = { 'web-app': 1800, 'api-gateway': 950, 'payments-service': 1400, 'payments-svc': 600, 'auth-service': 700, 'mobile-ios': 520, 'mobile-android': 610, 'data-pipeline': 320, 'search-service': 450, 'notification-service': 240, 'billing-service': 380, 'desktop-client': 300, 'ml-models': 60 }[repo.name];
    r.testsTotal = Math.round(base * (1 + 0.1 * ((t - RUNS_START) / (NOW - RUNS_START))) + randInt(-15, 15));
    r.testsFailed = r.status === 'failure' && chance(0.75) ? Math.min(r.testsTotal, Math.max(1, Math.round(lognormal(3, 1)))) : 0;
    if (r.status === 'cancelled') { r.testsTotal = null; r.testsFailed = null; }
  }
  // retries
  r.attempt = r.status !== 'cancelled' && chance(0.06) ? randInt(2, 3) : 1;
  // steps (nested, invisible to ES|QL)
  const stepNames = noTests ? ['checkout', 'setup', 'build', 'publish'] : ['checkout', 'install', 'lint', 'build', 'test', 'package'];
  const shares = stepNames.map(() => 0.3 + rand());
  const sum = shares.reduce((a, b) => a + b, 0);
  let failedAt = r.status === 'failure' ? randInt(1, stepNames.length - 1) : -1;
  r.steps = [];
  if (r.duration !== null) {
    for (let i = 0; i < stepNames.length; i++) {
      if (failedAt >= 0 && i > failedAt) break;
      r.steps.push({ name: stepNames[i], duration_ms: Math.round((r.duration * shares[i]) / sum), status: i === failedAt ? 'failure' : 'success' });
    }
  }
  r.sha = hex(40);
  return r;
}

for (let h = RUNS_START; h < NOW; h += HOUR) {
  const hourOfDay = new Date(h).getUTCHours();
  const lambda = 3.0 * hourFactor(hourOfDay) * dayFactor(h) * seasonal(h) * growth(h);
  const n = poisson(lambda);
  for (let i = 0; i < n; i++) {
    const t = h + Math.floor(rand() * HOUR);
    if (t >= NOW) continue;
    const repo = weighted(REPOS.filter((r) => !r.scheduleOnly && (!r.until || t < r.until)));
    const trigger = weighted([{ k: 'push', w: 48 }, { k: 'pull_request', w: 45 }, { k: 'manual', w: 5 }], (x) => x.w).k;
    runs.push(makeRun(t, repo, trigger));
  }
}
// scheduled runs: nightly at 02:00 UTC, weekly (Sunday 03:00) for ml-models
for (let d = RUNS_START; d < NOW; d += DAY) {
  for (const repo of REPOS) {
    if (repo.nightly) {
      if (repo.name === 'legacy-reports' && chance(0.04)) continue; // missed a night
      const t = d + 2 * HOUR + randInt(0, 9 * 60) * 1000;
      runs.push(makeRun(t, repo, 'schedule'));
    }
    if (repo.weekly && new Date(d).getUTCDay() === 0) runs.push(makeRun(d + 3 * HOUR + randInt(0, 300) * 1000, repo, 'schedule'));
  }
}
runs.sort((a, b) => a.t - b.t);
for (const r of runs) r.id = nextRunId();

// ---------- deployments ----------
const deployments = [];
const versions = {};
function nextVersion(service, bump) {
  const v = versions[service] || (versions[service] = [1, randInt(0, 9), 0]);
  if (bump === 'major') { v[0]++; v[1] = 0; v[2] = 0; } else if (bump === 'minor') { v[1]++; v[2] = 0; } else v[2]++;
  return v.join('.');
}
const SERVICES = REPOS.filter((r) => r.service).map((r) => ({ service: r.service, repo: r, w: r.w }));
const DEPLOYERS = ['Priya Patel', 'Marcus Johnson', 'Maria Garcia', 'Omar Haddad', 'Alex Chen', 'Nina Petrova'];
function deployDoc(t, svc, env, pair, runId, manual) {
  const failed = chance(env === 'production' ? 0.07 : 0.1);
  const cancelled = !failed && chance(0.025);
  const d = {
    t, service: svc.service, environment: env, pair,
    status: failed ? 'failed' : cancelled ? 'cancelled' : 'succeeded',
    duration: Math.round(lognormal(env === 'production' ? 6 * MIN : 3.5 * MIN, 0.5) * (failed ? 0.6 : 1)),
    runId, deployedBy: manual ? pick(DEPLOYERS) : null,
  };
  if (svc.service === 'payments-api') d.duration = Math.round(d.duration * 1.8);
  // rolled_back only recorded from 2024-02-01 on
  if (t >= Date.parse('2024-02-01T00:00:00Z')) d.rolledBack = d.status === 'succeeded' && env === 'production' && chance(svc.service === 'payments-api' ? 0.16 : 0.05);
  if (t >= NOW - 25 * MIN) { d.status = 'in_progress'; d.duration = null; d.rolledBack = false; }
  return d;
}
// history before the CI retention window: rate-driven, run ids not retained in ci-runs
const HIST_START = Date.parse('2023-08-21T00:00:00Z');
let oldRunSeq = 1;
for (let d = HIST_START; d < RUNS_START; d += DAY) {
  const dt = new Date(d);
  const dow = dt.getUTCDay();
  const md = (dt.getUTCMonth() + 1) * 100 + dt.getUTCDate();
  let lam = 2.2 + 3.2 * ((d - HIST_START) / (RUNS_START - HIST_START));
  if (dow === 0 || dow === 6) lam *= 0.08;
  if (md >= 1218 || md <= 102) lam *= 0.2; // holiday code freeze
  if (md >= 728 && md <= 810) lam *= 0.75;
  const n = poisson(lam);
  for (let i = 0; i < n; i++) {
    const svc = weighted(SERVICES);
    if (svc.service === 'billing' && d < Date.parse('2024-09-01T00:00:00Z')) continue; // billing is newer
    const t = d + (7 + Math.floor(rand() * 12)) * HOUR + randInt(0, 3599) * 1000;
    const manual = chance(0.06);
    const version = { bump: chance(0.006) ? 'major' : chance(0.25) ? 'minor' : 'patch' };
    const runId = manual ? null : `run-h${String(oldRunSeq++).padStart(5, '0')}`;
    if (!svc.repo.prodOnly) deployments.push(deployDoc(t, svc, 'staging', version, runId, manual));
    if (!svc.repo.stagingOnly && (svc.repo.prodOnly || chance(0.58))) {
      const tp = t + Math.round(lognormal(5 * HOUR, 0.8));
      if (tp < RUNS_START) deployments.push(deployDoc(tp, svc, 'production', version, runId, manual));
    }
  }
}
// inside the CI window: deployments come from successful main/release runs of deploying repos
for (const r of runs) {
  const svc = SERVICES.find((s) => s.repo === r.repo);
  if (!svc || r.status !== 'success') continue;
  if (!(r.branch === 'main' || r.branch.startsWith('release/'))) continue;
  if (r.trigger === 'pull_request') continue;
  const p = r.trigger === 'manual' ? 0.8 : r.trigger === 'schedule' ? 0.15 : 0.55;
  if (!chance(p)) continue;
  const end = r.t + r.queue + (r.duration || 0);
  const t = end + Math.round(lognormal(4 * MIN, 0.6));
  if (t >= NOW) continue;
  const version = { bump: r.branch.startsWith('release/') ? 'minor' : chance(0.1) ? 'minor' : 'patch' };
  if (!svc.repo.prodOnly) deployments.push(deployDoc(t, svc, 'staging', version, r.id, false));
  if (!svc.repo.stagingOnly && (svc.repo.prodOnly || chance(r.branch.startsWith('release/') ? 0.9 : 0.58))) {
    const tp = t + Math.round(lognormal(4 * HOUR, 0.8));
    if (tp < NOW) deployments.push(deployDoc(tp, svc, 'production', version, r.id, false));
  }
}
// a few manual deployments inside the window (no run id)
for (let d = RUNS_START; d < NOW - DAY; d += DAY) {
  if (!chance(0.18)) continue;
  const svc = weighted(SERVICES.filter((s) => !s.repo.stagingOnly));
  const t = d + (8 + Math.floor(rand() * 10)) * HOUR;
  deployments.push(deployDoc(t, svc, 'production', { bump: 'patch' }, null, true));
}
deployments.sort((a, b) => a.t - b.t);
// versions are assigned in time order; a staging deployment and its promotion to production share one version
for (const d of deployments) {
  if (!d.pair.version) d.pair.version = nextVersion(d.service, d.pair.bump);
  d.version = d.pair.version;
}
deployments.forEach((d, i) => { d.id = `dep-${String(i + 1).padStart(5, '0')}`; });

// ---------- write fixture ----------
rmSync(OUT, { recursive: true, force: true });
function writeIndex(name, mapping, docs) {
  const dir = join(OUT, 'indices', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mapping.json'), JSON.stringify(mapping, null, 2) + '\n');
  writeFileSync(join(dir, 'docs.ndjson'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
}
const FIRST_KEYWORD_WEEK = 30; // the index template changed: pipeline.config_version became keyword
function runsMapping(week) {
  return {
    properties: {
      '@timestamp': { type: 'date' },
      run: { properties: { id: { type: 'keyword' }, duration_ms: { type: 'long' }, queue_ms: { type: 'long' }, attempt: { type: 'integer' } } },
      repository: { properties: { name: { type: 'keyword' } } },
      branch: { type: 'keyword' },
      trigger: { type: 'keyword' },
      status: { type: 'keyword' },
      runner: { properties: { os: { type: 'keyword' }, type: { type: 'keyword' } } },
      author: { properties: { name: { type: 'keyword' }, team: { type: 'keyword' } } },
      labels: { type: 'keyword' },
      message: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      commit: { properties: { sha: { type: 'keyword' } } },
      tests: { properties: { total: { type: 'integer' }, failed: { type: 'integer' } } },
      pipeline: { properties: { config_version: { type: week >= FIRST_KEYWORD_WEEK ? 'keyword' : 'long' } } },
      steps: { type: 'nested', properties: { name: { type: 'keyword' }, duration_ms: { type: 'long' }, status: { type: 'keyword' } } },
    },
  };
}
function runDoc(r) {
  const week = isoWeek(r.t);
  const d = { '@timestamp': iso(r.t), run: { id: r.id, queue_ms: r.queue, attempt: r.attempt }, repository: { name: r.repo.name }, branch: r.branch, trigger: r.trigger, status: r.status };
  if (r.duration !== null) d.run.duration_ms = r.duration;
  d.runner = { os: r.os, type: r.runnerType };
  if (r.author) d.author = r.author.team ? { name: r.author.name, team: r.author.team } : { name: r.author.name };
  if (r.labels.length === 1) d.labels = r.labels[0];
  else if (r.labels.length > 1) d.labels = r.labels;
  d.message = r.message;
  d.commit = { sha: r.sha };
  if (r.testsTotal != null) d.tests = { total: r.testsTotal, failed: r.testsFailed };
  const cv = week < 27 ? 2 : week < FIRST_KEYWORD_WEEK ? 3 : chance(0.7) ? 4 : 3;
  d.pipeline = { config_version: week >= FIRST_KEYWORD_WEEK ? String(cv) : cv };
  if (r.steps.length) d.steps = r.steps;
  return d;
}
const byWeek = new Map();
for (const r of runs) {
  const w = isoWeek(r.t);
  if (!byWeek.has(w)) byWeek.set(w, []);
  byWeek.get(w).push(runDoc(r));
}
const aliasIndices = [];
for (const [w, docs] of [...byWeek.entries()].sort((a, b) => a[0] - b[0])) {
  const name = `ci-runs-2025.w${w}`;
  aliasIndices.push(name);
  writeIndex(name, runsMapping(w), docs);
}
writeIndex('deployments', {
  properties: {
    '@timestamp': { type: 'date' },
    deployment: { properties: { id: { type: 'keyword' } } },
    service: { type: 'keyword' },
    environment: { type: 'keyword' },
    version: { type: 'keyword' },
    status: { type: 'keyword' },
    rolled_back: { type: 'boolean' },
    duration_ms: { type: 'long' },
    run: { properties: { id: { type: 'keyword' } } },
    deployed_by: { type: 'keyword' },
  },
}, deployments.map((d) => {
  const o = { '@timestamp': iso(d.t), deployment: { id: d.id }, service: d.service, environment: d.environment, version: d.version, status: d.status };
  if (d.rolledBack !== undefined) o.rolled_back = d.rolledBack;
  if (d.duration !== null) o.duration_ms = d.duration;
  if (d.runId) o.run = { id: d.runId };
  if (d.deployedBy) o.deployed_by = d.deployedBy;
  return o;
}));
writeFileSync(join(OUT, 'aliases.json'), JSON.stringify({ 'ci-runs': aliasIndices }, null, 2) + '\n');

console.log(`runs: ${runs.length} in ${aliasIndices.length} weekly indices (${aliasIndices[0]} .. ${aliasIndices[aliasIndices.length - 1]})`);
for (const [w, docs] of [...byWeek.entries()].sort((a, b) => a[0] - b[0])) console.log(`  w${w}: ${docs.length}`);
console.log(`deployments: ${deployments.length} (in CI window: ${deployments.filter((d) => d.t >= RUNS_START).length})`);
