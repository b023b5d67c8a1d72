// Deterministic generator for the `payments` evaluation set fixture.
// Plain Node ESM: no packages, no network, no clock reads. Run: node generate.mjs
// Writes fixture/ next to this file (indices/*/mapping.json, indices/*/docs.ndjson, aliases.json).

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'fixture');
const NOW = Date.UTC(2025, 6, 16, 10, 0, 0); // 2025-07-16T10:00:00Z, the set's "now"
const DAY = 86400000;

// ---------------------------------------------------------------- PRNG
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(20250716);
const chance = (p) => rnd() < p;
const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
function weighted(pairs) {
  let total = 0;
  for (const [, w] of pairs) total += w;
  let x = rnd() * total;
  for (const [v, w] of pairs) {
    x -= w;
    if (x < 0) return v;
  }
  return pairs[pairs.length - 1][0];
}
function normal() {
  const u = 1 - rnd();
  const v = rnd();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
const round2 = (x) => Math.round(x * 100) / 100;
const round1 = (x) => Math.round(x * 10) / 10;
const iso = (ms) => new Date(ms).toISOString();
const pad = (n, w) => String(n).padStart(w, '0');

// ---------------------------------------------------------------- reference data
const MCC = {
  grocery: '5411', restaurants: '5812', electronics: '5732', airlines: '4511', hotels: '7011',
  digital_goods: '5818', apparel: '5651', fuel: '5541', streaming: '4899', pharmacy: '5912',
};
const CURRENCY = { US: 'USD', CA: 'CAD', GB: 'GBP', DE: 'EUR', FR: 'EUR', NL: 'EUR', ES: 'EUR', JP: 'JPY' };
const FX = { USD: 1, CAD: 0.73, GBP: 1.27, EUR: 1.08, JPY: 0.0067 };
const LOCATION = {
  US: [40.71, -74.0], CA: [43.65, -79.38], GB: [51.51, -0.13], DE: [52.52, 13.4], FR: [48.86, 2.35],
  NL: [52.37, 4.9], ES: [40.42, -3.7], JP: [35.68, 139.69],
};
const EU = new Set(['GB', 'DE', 'FR', 'NL', 'ES']);

// id, name, category, country, risk tier, onboarded_at, tags, weight (relative volume)
const MERCHANTS = [
  ['M001', 'FreshCart Groceries', 'grocery', 'US', 'low', '2019-03-12', ['grocery-chain', 'loyalty'], 100],
  ['M002', 'Corner Market', 'grocery', 'GB', 'low', '2020-06-01', ['smb'], 31],
  ['M003', 'Biomarkt Lindner', 'grocery', 'DE', 'low', '2021-02-15', ['smb', 'organic'], 27],
  ['M004', 'Maple Foods', 'grocery', 'CA', 'low', '2022-09-30', ['grocery-chain'], 44],
  ['M005', 'Bella Trattoria', 'restaurants', 'US', 'low', '2020-01-20', ['smb'], 23],
  ['M006', 'Le Petit Bistro', 'restaurants', 'FR', 'medium', '2023-04-11', ['smb'], 17],
  ['M007', 'Burger Barn', 'restaurants', 'US', 'low', '2018-11-05', ['franchise', 'loyalty'], 86],
  ['M008', 'Noodle House', 'restaurants', 'GB', 'medium', '2024-02-01', ['smb'], 19],
  ['M009', 'VoltTech Electronics', 'electronics', 'US', 'medium', '2019-07-07', ['ecommerce', 'marketplace'], 58],
  ['M010', 'Pixel Planet', 'electronics', 'DE', 'high', '2024-10-15', ['ecommerce'], 25],
  ['M011', 'GadgetHub', 'electronics', 'GB', 'medium', '2021-05-05', ['ecommerce', 'marketplace'], 36],
  ['M012', 'SkyWay Airlines', 'airlines', 'US', 'medium', '2018-03-01', ['travel', 'enterprise'], 33],
  ['M013', 'AeroNord', 'airlines', 'NL', 'medium', '2020-08-19', ['travel', 'enterprise'], 21],
  ['M014', 'Costa Air', 'airlines', 'ES', 'high', '2022-12-01', ['travel'], 13],
  ['M015', 'Harbor View Hotel', 'hotels', 'US', 'low', '2019-10-10', ['travel'], 20],
  ['M016', 'Hotel Alpenblick', 'hotels', 'DE', 'low', '2021-03-03', ['travel', 'smb'], 11],
  ['M017', 'Grand Maple Inn', 'hotels', 'CA', 'medium', '2023-06-06', ['travel'], 9],
  ['M018', 'Tokyo Stay', 'hotels', 'JP', 'medium', '2024-01-15', ['travel'], 15],
  ['M019', 'GameVault', 'digital_goods', 'US', 'high', '2022-04-04', ['ecommerce', 'subscription', 'gaming'], 64],
  ['M020', 'AppForge', 'digital_goods', 'GB', 'high', '2023-08-08', ['subscription', 'ecommerce'], 39],
  ['M021', 'CloudNotes', 'digital_goods', 'NL', 'medium', '2021-11-11', ['subscription', 'saas'], 29],
  ['M022', 'Lumen Learning', 'digital_goods', 'US', 'medium', '2024-05-20', ['subscription', 'education'], 18],
  ['M023', 'Urban Threads', 'apparel', 'US', 'medium', '2020-02-02', ['ecommerce'], 41],
  ['M024', 'Maison Lumière', 'apparel', 'FR', 'medium', '2022-07-14', ['ecommerce', 'luxury'], 14],
  ['M025', 'Nordic Knit', 'apparel', 'NL', 'low', '2023-01-09', ['ecommerce', 'smb'], 8],
  ['M026', 'StreetStyle Outlet', 'apparel', 'GB', 'high', '2025-02-10', ['ecommerce', 'marketplace'], 30],
  ['M027', 'QuickFuel', 'fuel', 'US', 'low', '2018-05-05', ['franchise'], 72],
  ['M028', 'Autohof Tank', 'fuel', 'DE', 'low', '2019-09-09', ['franchise'], 26],
  ['M029', 'Northern Gas', 'fuel', 'CA', 'low', '2021-01-01', [], 22],
  ['M030', 'StreamBox', 'streaming', 'US', 'medium', '2019-12-12', ['subscription'], 48],
  ['M031', 'Melodia Music', 'streaming', 'ES', 'medium', '2022-03-21', ['subscription'], 16],
  ['M032', 'Kinopolis Plus', 'streaming', 'DE', 'medium', '2023-10-01', ['subscription'], 12],
  ['M033', 'CarePlus Pharmacy', 'pharmacy', 'US', 'low', '2020-04-04', ['healthcare'], 34],
  ['M034', 'Apotheke am Markt', 'pharmacy', 'DE', 'low', '2021-06-30', ['healthcare', 'smb'], 10],
  ['M035', 'Wellness Direct', 'pharmacy', 'GB', 'high', '2024-09-01', ['healthcare', 'ecommerce'], 24],
  ['M036', 'Sakura Electronics', 'electronics', 'JP', 'medium', '2023-03-03', ['ecommerce'], 12],
  ['M037', 'Ramen Ichiban', 'restaurants', 'JP', 'low', '2024-06-06', ['smb'], 7],
  ['M038', 'Canuck Outfitters', 'apparel', 'CA', 'low', '2022-11-11', ['ecommerce', 'smb'], 6],
  ['M039', 'Hostal Sol', 'hotels', 'ES', 'medium', '2025-04-01', ['travel', 'smb'], 16],
  ['M040', 'TicketWave', 'digital_goods', 'US', 'high', '2025-05-15', ['ecommerce', 'events'], 45],
  ['M041', 'Green Leaf Market', 'grocery', 'US', 'low', '2025-07-08', ['smb'], 0],
  ['M042', 'Bistro Lune', 'restaurants', 'FR', 'low', '2025-07-14', ['smb'], 0],
].map(([id, name, category, country, tier, onboarded, tags, weight]) => ({
  id, name, category, country, tier, onboarded: Date.parse(`${onboarded}T00:00:00Z`), tags, weight,
}));

// median ticket in USD and channel mix per category
const TICKET = {
  grocery: 45, restaurants: 30, electronics: 250, airlines: 420, hotels: 310,
  digital_goods: 15, apparel: 70, fuel: 50, streaming: 12, pharmacy: 28,
};
const CHANNELS = {
  grocery: [['pos', 85], ['online', 15]],
  restaurants: [['pos', 80], ['online', 10], ['in_app', 10]],
  electronics: [['online', 60], ['pos', 30], ['in_app', 10]],
  airlines: [['online', 75], ['in_app', 15], ['moto', 10]],
  hotels: [['online', 50], ['pos', 30], ['moto', 20]],
  digital_goods: [['online', 50], ['in_app', 50]],
  apparel: [['online', 55], ['pos', 40], ['in_app', 5]],
  fuel: [['pos', 100]],
  streaming: [['online', 60], ['in_app', 40]],
  pharmacy: [['pos', 70], ['online', 30]],
};
const FOREIGN = ['US', 'GB', 'DE', 'FR', 'CA', 'NL', 'ES', 'JP', 'BR', 'MX', 'IN', 'AU'];
const DECLINE_REASONS = [
  ['insufficient_funds', 35], ['do_not_honor', 25], ['suspected_fraud', 15], ['invalid_cvv', 10],
  ['expired_card', 8], ['limit_exceeded', 7],
];
const RULES = ['velocity_24h', 'geo_mismatch', 'high_amount', 'new_device', 'bin_risk', 'proxy_ip'];

// ---------------------------------------------------------------- transactions
// [index, start, end, docs]: txn-2025.03 lost most of its data to an ingest outage (only Mar 1-5 kept);
// txn-2025.07 runs up to "now".
const MONTHS = [
  ['txn-2025.01', Date.UTC(2025, 0, 1), Date.UTC(2025, 1, 1), 1750],
  ['txn-2025.02', Date.UTC(2025, 1, 1), Date.UTC(2025, 2, 1), 1650],
  ['txn-2025.03', Date.UTC(2025, 2, 1), Date.UTC(2025, 2, 6), 300],
  ['txn-2025.04', Date.UTC(2025, 3, 1), Date.UTC(2025, 4, 1), 1900],
  ['txn-2025.05', Date.UTC(2025, 4, 1), Date.UTC(2025, 5, 1), 2000],
  ['txn-2025.06', Date.UTC(2025, 5, 1), Date.UTC(2025, 6, 1), 2100],
  ['txn-2025.07', Date.UTC(2025, 6, 1), NOW, 1070],
];
const HOUR_WEIGHTS = [1, 1, 1, 1, 1, 2, 3, 5, 7, 8, 8, 9, 10, 9, 8, 8, 8, 9, 10, 10, 8, 6, 4, 2].map((w, h) => [h, w]);

function timestampIn(start, end) {
  for (;;) {
    const days = Math.floor((end - start) / DAY) + 1;
    const day = Math.floor(rnd() * days);
    const hour = weighted(HOUR_WEIGHTS);
    const t = start + day * DAY + hour * 3600000 + Math.floor(rnd() * 3600) * 1000 + Math.floor(rnd() * 1000);
    if (t >= start && t < end) return t;
  }
}

function brandFor(cardCountry) {
  if (cardCountry === 'JP' && chance(0.5)) return 'jcb';
  return weighted([['visa', 52], ['mastercard', 33], ['amex', 10], ['discover', cardCountry === 'US' ? 5 : 1]]);
}
function messyBrand(b) {
  // A legacy gateway reports card brands in upper case, another in title case.
  const x = rnd();
  if (x < 0.12) return b.toUpperCase();
  if (x < 0.17) return b === 'amex' ? 'Amex' : b === 'jcb' ? 'JCB' : b[0].toUpperCase() + b.slice(1);
  return b;
}

const txnIndices = [];
const approvedForDisputes = [];
for (const [index, start, end, n] of MONTHS) {
  const docs = [];
  const monthTag = index.slice(4).replace('.', '');
  const times = [];
  for (let i = 0; i < n; i++) times.push(timestampIn(start, end));
  times.sort((a, b) => a - b);
  const conflictLong = index === 'txn-2025.01' || index === 'txn-2025.02';
  times.forEach((ts, i) => {
    const eligible = MERCHANTS.filter((m) => m.weight > 0 && m.onboarded <= ts).map((m) => [m, m.weight]);
    const m = weighted(eligible);
    const currency = CURRENCY[m.country];
    const channel = weighted(CHANNELS[m.category]);
    const cardCountry = chance(0.75) ? m.country : pick(FOREIGN);
    const crossBorder = cardCountry !== m.country;
    const brand = brandFor(cardCountry);
    const usdTarget = TICKET[m.category] * Math.exp(0.6 * normal());
    const amount = currency === 'JPY' ? Math.max(1, Math.round(usdTarget / FX.JPY)) : Math.max(0.5, round2(usdTarget / FX[currency]));
    const amountUsd = round2(amount * FX[currency]);
    const pDecline = 0.07 + (m.tier === 'high' ? 0.07 : 0) + (m.category === 'digital_goods' ? 0.03 : 0) + (crossBorder ? 0.05 : 0);
    const pRefund = m.category === 'apparel' ? 0.07 : m.category === 'electronics' ? 0.05 : 0.025;
    let status = 'approved';
    const x = rnd();
    if (x < pDecline) status = 'declined';
    else if (x < pDecline + pRefund) status = 'refunded';
    else if (x < pDecline + pRefund + 0.012) status = 'reversed';
    let declineReason = null;
    if (status === 'declined') {
      declineReason = crossBorder && chance(0.3) ? 'suspected_fraud' : weighted(DECLINE_REASONS);
    }
    let risk = Math.min(99.9, Math.max(0.1, 18 + 14 * normal() + (crossBorder ? 12 : 0) + (m.tier === 'high' ? 10 : 0)));
    if (declineReason === 'suspected_fraud') risk = 70 + rnd() * 29.9;
    risk = round1(risk);
    const cardNotPresent = channel === 'online' || channel === 'in_app';
    let threeDs = null;
    if (cardNotPresent) threeDs = chance(EU.has(m.country) ? 0.9 : 0.5);
    const latency = Math.round((channel === 'pos' ? 240 : 420) * Math.exp(0.45 * normal()) + (threeDs ? 650 : 0));
    const doc = {};
    doc['@timestamp'] = iso(ts);
    doc.transaction = { id: `txn_${monthTag}_${pad(i + 1, 5)}` };
    doc.amount = amount;
    doc.currency = currency;
    doc.amount_usd = amountUsd;
    doc.merchant = { id: m.id, name: m.name, category: m.category, mcc: MCC[m.category], country: m.country };
    doc.card = { brand: messyBrand(brand), country: cardCountry, type: weighted([['credit', 60], ['debit', 35], ['prepaid', 5]]) };
    if (!chance(0.04)) doc.customer = { country: chance(0.9) ? cardCountry : pick(FOREIGN) };
    doc.channel = channel;
    doc.status = status;
    if (declineReason) doc.decline_reason = declineReason;
    if (!chance(0.03)) doc.latency_ms = latency;
    if (threeDs !== null) doc.three_ds = threeDs;
    const riskObj = { score: risk };
    if (risk >= 60) {
      const k = 1 + Math.floor(rnd() * 3);
      const rules = [];
      for (const r of RULES) if (rules.length < k && chance(0.4)) rules.push({ rule: r, weight: 5 + Math.floor(rnd() * 20) });
      if (rules.length === 0) rules.push({ rule: pick(RULES), weight: 10 });
      riskObj.rules = rules;
    }
    doc.risk = riskObj;
    if (channel === 'pos') {
      const tid = 40000000 + Number(m.id.slice(1)) * 100 + Math.floor(rnd() * 8);
      doc.acquirer = { terminal_id: conflictLong ? tid : `T-${tid}` };
      const [lat, lon] = LOCATION[m.country];
      doc.pos = { location: { lat: round2(lat + (rnd() - 0.5) * 0.2), lon: round2(lon + (rnd() - 0.5) * 0.2) } };
    }
    docs.push(doc);
    if (status === 'approved') approvedForDisputes.push({ ts, doc, m });
  });
  txnIndices.push([index, docs, conflictLong]);
}

function txnMapping(conflictLong) {
  return {
    properties: {
      '@timestamp': { type: 'date' },
      transaction: { properties: { id: { type: 'keyword' } } },
      amount: { type: 'double' },
      currency: { type: 'keyword' },
      amount_usd: { type: 'double' },
      merchant: {
        properties: {
          id: { type: 'keyword' }, name: { type: 'keyword' }, category: { type: 'keyword' },
          mcc: { type: 'keyword' }, country: { type: 'keyword' },
        },
      },
      card: { properties: { brand: { type: 'keyword' }, country: { type: 'keyword' }, type: { type: 'keyword' } } },
      customer: { properties: { country: { type: 'keyword' } } },
      channel: { type: 'keyword' },
      status: { type: 'keyword' },
      decline_reason: { type: 'keyword' },
      latency_ms: { type: 'long' },
      three_ds: { type: 'boolean' },
      risk: {
        properties: {
          score: { type: 'double' },
          rules: { type: 'nested', properties: { rule: { type: 'keyword' }, weight: { type: 'integer' } } },
        },
      },
      acquirer: { properties: { terminal_id: { type: conflictLong ? 'long' : 'keyword' } } },
      pos: { properties: { location: { type: 'geo_point' } } },
    },
  };
}

// ---------------------------------------------------------------- disputes
const disputes = [];
for (const { ts, doc, m } of approvedForDisputes) {
  let p = 0.02;
  if (m.category === 'digital_goods') p = 0.06;
  else if (m.category === 'electronics' || m.category === 'airlines') p = 0.035;
  if (m.tier === 'high') p *= 1.8;
  if (doc.card.country !== m.country) p *= 1.5;
  if (!chance(p)) continue;
  const opened = ts + 3 * DAY + Math.floor(rnd() * 57 * DAY);
  if (opened >= NOW) continue;
  const subscription = m.tags.includes('subscription');
  const reason = weighted([
    ['fraud', 35], ['product_not_received', m.category === 'digital_goods' ? 8 : 20], ['not_as_described', 15],
    ['duplicate', 10], ['subscription_canceled', subscription ? 30 : 2], ['credit_not_processed', 8],
  ]);
  const resolved = opened + 7 * DAY + Math.floor(rnd() * 63 * DAY);
  const partial = chance(0.2);
  const amount = partial
    ? (doc.currency === 'JPY' ? Math.max(1, Math.round(doc.amount * 0.5)) : round2(doc.amount * 0.5))
    : doc.amount;
  disputes.push({
    opened,
    doc: {
      dispute: { id: '' },
      transaction: { id: doc.transaction.id },
      merchant: { id: m.id, name: m.name, category: m.category },
      reason,
      amount,
      currency: doc.currency,
      amount_usd: round2(amount * FX[doc.currency]),
      opened_at: iso(opened),
      ...(resolved < NOW ? {
        resolved_at: iso(resolved),
        outcome: weighted([['won', 45], ['lost', reason === 'fraud' ? 50 : 35], ['accepted', 15]]),
      } : {}),
    },
  });
}
disputes.sort((a, b) => a.opened - b.opened);
disputes.forEach((d, i) => { d.doc.dispute.id = `dp_${pad(i + 1, 5)}`; });

const disputesMapping = {
  properties: {
    dispute: { properties: { id: { type: 'keyword' } } },
    transaction: { properties: { id: { type: 'keyword' } } },
    merchant: { properties: { id: { type: 'keyword' }, name: { type: 'keyword' }, category: { type: 'keyword' } } },
    reason: { type: 'keyword' },
    amount: { type: 'double' },
    currency: { type: 'keyword' },
    amount_usd: { type: 'double' },
    opened_at: { type: 'date' },
    resolved_at: { type: 'date' },
    outcome: { type: 'keyword' },
  },
};

// ---------------------------------------------------------------- merchants
const merchantDocs = MERCHANTS.map((m) => {
  const d = {
    merchant: { id: m.id, name: m.name, category: m.category, mcc: MCC[m.category], country: m.country },
    onboarded_at: iso(m.onboarded),
    risk_tier: m.tier,
    settlement_currency: CURRENCY[m.country],
  };
  if (m.tags.length === 1) d.tags = m.tags[0];
  else if (m.tags.length > 1) d.tags = m.tags;
  return d;
});
const merchantsMapping = {
  properties: {
    merchant: {
      properties: {
        id: { type: 'keyword' },
        name: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
        category: { type: 'keyword' },
        mcc: { type: 'keyword' },
        country: { type: 'keyword' },
      },
    },
    onboarded_at: { type: 'date' },
    risk_tier: { type: 'keyword' },
    settlement_currency: { type: 'keyword' },
    tags: { type: 'keyword' },
  },
};

// ---------------------------------------------------------------- write
rmSync(OUT, { recursive: true, force: true });
function writeIndex(name, mapping, docs) {
  const dir = join(OUT, 'indices', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mapping.json'), JSON.stringify(mapping, null, 2) + '\n');
  writeFileSync(join(dir, 'docs.ndjson'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
}
for (const [name, docs, conflictLong] of txnIndices) writeIndex(name, txnMapping(conflictLong), docs);
writeIndex('merchants', merchantsMapping, merchantDocs);
writeIndex('disputes', disputesMapping, disputes.map((d) => d.doc));
writeFileSync(join(OUT, 'aliases.json'), JSON.stringify({ txn: txnIndices.map(([n]) => n) }, null, 2) + '\n');

const counts = txnIndices.map(([n, d]) => `${n}=${d.length}`).join(' ');
console.log(`payments fixture: ${counts} merchants=${merchantDocs.length} disputes=${disputes.length}`);
