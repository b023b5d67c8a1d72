// Deterministic generator for the "clickstream" evaluation set.
// Writes fixture/ (a stand-in Elasticsearch cluster fixture): monthly indices
// events-2025.07 .. events-2025.10, alias "events" over them, and security.json.
// Plain Node ESM, no dependencies, seeded PRNG, no wall clock.
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
const rnd = mulberry32(20251031);
const rand = (lo, hi) => lo + (hi - lo) * rnd();
const randInt = (lo, hi) => Math.floor(rand(lo, hi + 1));
const chance = (p) => rnd() < p;
function pickW(items, weights) {
  let total = 0;
  for (const w of weights) total += w;
  let r = rnd() * total;
  for (let i = 0; i < items.length; i++) {
    r -= weights[i];
    if (r < 0) return items[i];
  }
  return items[items.length - 1];
}
const pick = (items) => items[Math.floor(rnd() * items.length)];
const round2 = (x) => Math.round(x * 100) / 100;
// log-normal-ish positive value with the given median
const logn = (median, sigma) => {
  const u1 = Math.max(rnd(), 1e-9);
  const u2 = rnd();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return median * Math.exp(sigma * z);
};

const DAY = 86400000;
const NOW = Date.parse('2025-10-31T23:00:00Z');
const START = Date.parse('2025-07-01T00:00:00Z');
const SIGNUP_START = Date.parse('2023-11-01T00:00:00Z');

// ---------------------------------------------------------------- catalogue
// [name, category, price, popularity weight, flags]
const CATALOGUE = [
  ['Aurora Wireless Headphones', 'Electronics', 149.99, 14],
  ['Pulse Bluetooth Speaker', 'Electronics', 59.5, 11],
  ['Nimbus 4K Action Camera', 'Electronics', 279.0, 5],
  ['Voltline USB-C Charger 65W', 'Electronics', 34.99, 9],
  ['Orbit Smartwatch Series 3', 'Electronics', 219.99, 7],
  ['Echo Noise-Cancelling Earbuds', 'Electronics', 89.99, 10],
  ['Lumen E-Reader Paperwhite', 'Electronics', 129.0, 4],
  ['Barista Pro Coffee Grinder', 'Home & Kitchen', 74.95, 8],
  ['Cast Iron Skillet 12"', 'Home & Kitchen', 39.99, 7],
  ['Cloudrest Memory Foam Pillow', 'Home & Kitchen', 45.0, 6],
  ['Glacier Insulated Water Bottle', 'Home & Kitchen', 24.99, 12],
  ['Harvest Bamboo Cutting Board Set', 'Home & Kitchen', 29.5, 4],
  ['Velvet Touch Heated Blanket', 'Home & Kitchen', 89.0, 3],
  ['Copper Pour-Over Kettle', 'Home & Kitchen', 64.0, 2, 'neverCart'],
  ['Trailblazer Rain Jacket', 'Clothing', 119.0, 7],
  ['Everyday Merino Crew Sweater', 'Clothing', 79.99, 6],
  ['Stride Running Shoes', 'Clothing', 99.95, 11],
  ['Classic Denim Jacket', 'Clothing', 84.5, 5],
  ['Cozy Knit Beanie', 'Clothing', 18.99, 6],
  ['Linen Summer Shirt', 'Clothing', 42.0, 5],
  ['Silk Repair Face Serum', 'Beauty & Personal Care', 38.5, 8],
  ['Daily Glow SPF 50 Sunscreen', 'Beauty & Personal Care', 16.99, 9],
  ['Sandalwood Beard Oil', 'Beauty & Personal Care', 21.0, 3],
  ['Ionic Pro Hair Dryer', 'Beauty & Personal Care', 69.99, 5],
  ['Rose Clay Face Mask', 'Beauty & Personal Care', 14.5, 2, 'neverCart'],
  ['Summit 2-Person Camping Tent', 'Outdoor Gear', 189.0, 5],
  ['Ridge Trekking Poles', 'Outdoor Gear', 54.99, 4],
  ['Basecamp Sleeping Bag', 'Outdoor Gear', 109.0, 4],
  ['Kestrel Hydration Backpack', 'Outdoor Gear', 72.0, 5],
  ['Flexi Yoga Mat', 'Outdoor Gear', 32.99, 9],
  ['Alpine Carbon Fiber Kayak Paddle', 'Outdoor Gear', 349.0, 1, 'neverCart'],
  ['The Quiet Orchard (Hardcover)', 'Books', 27.99, 6],
  ['Data Gardens: A Field Guide', 'Books', 44.0, 3],
  ['Midnight Over Lisbon', 'Books', 16.5, 5],
  ['Cooking with Smoke and Fire', 'Books', 32.0, 3],
  ['Starfall Chronicles Box Set', 'Books', 64.99, 2],
  ['Galaxy Builder Brick Set', 'Toys & Games', 59.99, 6],
  ['Wobble Tower Party Game', 'Toys & Games', 19.99, 4],
  ['Robo Rover Coding Kit', 'Toys & Games', 89.95, 3],
  ['Plush Red Panda', 'Toys & Games', 22.0, 4],
  ['Heritage Chess Set', 'Toys & Games', 48.0, 1, 'neverCart'],
];
const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const PRODUCTS = CATALOGUE.map(([name, category, price, weight, flag], i) => ({
  id: `SKU-${String(1001 + i * 7)}`,
  name,
  category,
  price,
  weight,
  neverCart: flag === 'neverCart',
}));
const PRODUCT_W = PRODUCTS.map((p) => p.weight);
const CATEGORIES = [...new Set(PRODUCTS.map((p) => p.category))];

// ---------------------------------------------------------------- users
const FIRST = ['Maya', 'Liam', 'Sofia', 'Noah', 'Amara', 'Ethan', 'Priya', 'Lucas', 'Hana', 'Mateo',
  'Chloe', 'Oliver', 'Zara', 'Felix', 'Ingrid', 'Diego', 'Aisha', 'Jonas', 'Leila', 'Samuel',
  'Nora', 'Kenji', 'Elena', 'Omar', 'Grace', 'Tobias', 'Yuki', 'Rafael', 'Clara', 'Arjun',
  'Freya', 'Malik', 'Isla', 'Hugo', 'Mei', 'Victor', 'Ada', 'Tariq', 'Lena', 'Bruno'];
const LAST = ['Chen', 'Okafor', 'Rossi', 'Schmidt', 'Patel', 'Dubois', 'Nakamura', 'Silva', 'Kowalski',
  'Hughes', 'Andersen', 'Moreau', 'Garcia', 'Haddad', 'Lindqvist', 'Murphy', 'Ivanova', 'Tanaka',
  'Fischer', 'Oliveira', 'Brennan', 'Kaur', 'Novak', 'Walsh', 'Costa', 'Berg', 'Mensah', 'Duarte',
  'Sato', 'Romero'];

const GEO = [
  ['United States', 40, ['New York', 'Los Angeles', 'Chicago', 'San Francisco', 'Austin'], [30, 22, 18, 16, 14]],
  ['United Kingdom', 14, ['London', 'Manchester', 'Edinburgh'], [60, 25, 15]],
  ['Germany', 10, ['Berlin', 'Munich', 'Hamburg'], [45, 35, 20]],
  ['Canada', 9, ['Toronto', 'Vancouver', 'Montreal'], [45, 35, 20]],
  ['France', 7, ['Paris', 'Lyon'], [70, 30]],
  ['Australia', 6, ['Sydney', 'Melbourne'], [55, 45]],
  ['Brazil', 5, ['São Paulo', 'Rio de Janeiro'], [60, 40]],
  ['India', 5, ['Mumbai', 'Bengaluru', 'New Delhi'], [40, 35, 25]],
  ['Netherlands', 4, ['Amsterdam', 'Rotterdam'], [70, 30]],
];
function pickGeo() {
  const g = pickW(GEO, GEO.map((x) => x[1]));
  const city = chance(0.06) ? null : pickW(g[2], g[3]);
  return { country: g[0], city };
}

const N_USERS = 260;
const usedNames = new Set();
const USERS = [];
for (let i = 0; i < N_USERS; i++) {
  let name;
  do name = `${pick(FIRST)} ${pick(LAST)}`; while (usedNames.has(name));
  usedNames.add(name);
  // signups skewed to recent months; the oldest about two years before "now"
  const age = Math.pow(rnd(), 1.6) * (NOW - SIGNUP_START);
  const signup = NOW - 2 * DAY - age;
  const ageDays = (NOW - signup) / DAY;
  let segment;
  if (ageDays < 120) segment = chance(0.85) ? 'new' : 'returning';
  else segment = chance(0.14) ? 'vip' : 'returning';
  const geo = pickGeo();
  const devicePref = pickW(['mobile', 'desktop', 'tablet'], [55, 35, 10]);
  // activity: heavy-tailed
  const activity = segment === "vip" ? logn(4, 0.6) : logn(1, 1.0);
  USERS.push({
    id: `U-${10001 + i * 3}`,
    name,
    signup: Math.floor(signup / 1000) * 1000,
    segment,
    geo,
    devicePref,
    activity,
  });
}

// ---------------------------------------------------------------- search terms
const SEARCHES = [
  ['wireless headphones', 40, 'Electronics'], ['running shoes', 30, 'Clothing'], ['water bottle', 22, 'Home & Kitchen'],
  ['yoga mat', 20, 'Outdoor Gear'], ['bluetooth speaker', 18, 'Electronics'], ['rain jacket', 16, 'Clothing'],
  ['coffee grinder', 14, 'Home & Kitchen'], ['sunscreen', 14, 'Beauty & Personal Care'], ['gift for dad', 12, null],
  ['camping tent', 11, 'Outdoor Gear'], ['smartwatch', 11, 'Electronics'], ['face serum', 9, 'Beauty & Personal Care'],
  ['lego', 9, 'Toys & Games'], ['kids coding toy', 6, 'Toys & Games'], ['sci-fi novels', 6, 'Books'],
  ['heated blanket', 6, 'Home & Kitchen'], ['usb c charger', 8, 'Electronics'], ['merino sweater', 5, 'Clothing'],
  ['hiking backpack', 6, 'Outdoor Gear'], ['cookbook', 4, 'Books'], ['beard oil', 3, 'Beauty & Personal Care'],
  ['airpods pro max', 5, 'none'], ['standing desk', 4, 'none'], ['heeted blanket', 2, 'none'],
  ['nintendo switch', 4, 'none'], ['iphone case', 3, 'none'], ['chess set', 2, 'Toys & Games'],
];

// ---------------------------------------------------------------- sessions
const events = [];
let sessionSeq = 0;
let orderSeq = 0;
const refunds = [];

function dayFactor(t) {
  const d = new Date(t);
  const dow = d.getUTCDay();
  const weekend = dow === 0 || dow === 6 ? 1.25 : 1.0;
  const progress = (t - START) / (NOW - START); // growth over the period
  let f = weekend * (0.8 + 0.55 * progress);
  // a summer sale in the middle of August and a slow patch late September
  const iso = d.toISOString().slice(0, 10);
  if (iso >= '2025-08-14' && iso <= '2025-08-17') f *= 1.9;
  if (iso >= '2025-09-22' && iso <= '2025-09-26') f *= 0.7;
  return f;
}
const HOUR_W = [2, 1.5, 1, 1, 1, 1.2, 2, 3, 4, 5, 5.5, 6, 6.5, 6, 6, 6.5, 7, 8, 9.5, 10.5, 10, 8.5, 6, 3.5];

const BROWSERS = {
  mobile: [['Chrome', 'Safari', 'Samsung Internet'], [45, 45, 10]],
  desktop: [['Chrome', 'Safari', 'Edge', 'Firefox'], [58, 16, 15, 11]],
  tablet: [['Safari', 'Chrome'], [70, 30]],
};
const USER_W = USERS.map((u) => u.activity);

function productUrl(p) {
  return `/p/${p.id.toLowerCase()}-${slug(p.name)}`;
}

function makeSession(t0) {
  sessionSeq++;
  const sid = `s-${(sessionSeq * 7919 + 100003).toString(36)}`;
  let user = null;
  if (!chance(0.36)) {
    for (let tries = 0; tries < 20; tries++) {
      const u = pickW(USERS, USER_W);
      if (u.signup <= t0) { user = u; break; }
    }
  }
  const device = user && chance(0.75) ? user.devicePref : pickW(['mobile', 'desktop', 'tablet'], [56, 34, 10]);
  const browser = chance(0.015) ? null : pickW(...BROWSERS[device]);
  const geo = user && chance(0.92) ? user.geo : pickGeo();
  const referrer = pickW(['google', 'direct', 'social', 'email', 'ads'],
    user ? [30, 32, 10, 18, 10] : [44, 20, 17, 4, 15]);
  const experiment = t0 >= Date.parse('2025-10-01T00:00:00Z') ? (chance(0.5) ? 'checkout_v2' : 'control') : null;

  const base = () => {
    const doc = {
      'session.id': sid,
      'device.type': device,
      'browser.name': browser,
      'geo.country_name': geo.country,
      'geo.city_name': geo.city,
      'referrer.source': referrer,
    };
    if (user) {
      doc['user.id'] = user.id;
      doc['user.name'] = user.name;
      doc['user.segment'] = user.segment;
      doc['user.signup_date'] = new Date(user.signup).toISOString();
    }
    if (experiment) doc['experiment.variant'] = experiment;
    return doc;
  };

  // purchase propensity
  let buyP = 0.16;
  if (user?.segment === 'vip') buyP *= 2.6;
  else if (user?.segment === 'returning') buyP *= 1.5;
  else if (!user) buyP *= 0.75;
  if (device === 'mobile') buyP *= 0.75;
  if (device === 'desktop') buyP *= 1.3;
  if (referrer === 'email') buyP *= 1.5;
  if (referrer === 'social') buyP *= 0.6;
  if (experiment === 'checkout_v2') buyP *= 1.2;

  const list = [];
  let t = t0;
  const push = (action, fields, dwell) => {
    list.push({ ts: t, action, fields, dwell });
    t += dwell ?? rand(400, 3000);
  };
  const dwellPage = () => Math.round(Math.min(600000, logn(24000, 0.9)));

  // landing page
  const landing = pickW(['home', 'product', 'category', 'help'], referrer === 'ads' ? [20, 65, 15, 0] : [50, 28, 18, 4]);
  let focusCat = pick(CATEGORIES);
  const viewed = [];
  const viewProduct = (p) => {
    push('page_view', {
      'page.url': productUrl(p), 'page.category': 'Product Detail',
      'product.id': p.id, 'product.name': p.name, 'product.category': p.category, 'product.price': p.price,
    }, dwellPage());
    viewed.push(p);
  };
  if (landing === 'home') push('page_view', { 'page.url': '/', 'page.category': 'Home' }, dwellPage());
  else if (landing === 'help') {
    push('page_view', { 'page.url': pick(['/help/returns', '/help/shipping', '/help/contact']), 'page.category': 'Help Center' }, dwellPage());
  } else if (landing === 'category') push('page_view', { 'page.url': `/c/${slug(focusCat)}`, 'page.category': 'Category Listing' }, dwellPage());
  else viewProduct(pickW(PRODUCTS, PRODUCT_W));

  // browsing
  const depth = Math.min(14, Math.floor(logn(2.2, 0.8)));
  for (let i = 0; i < depth; i++) {
    const r = rnd();
    if (r < 0.16) {
      const [terms, , cat] = pickW(SEARCHES, SEARCHES.map((s) => s[1]));
      const none = cat === 'none';
      push('search', {
        'page.url': `/search?q=${encodeURIComponent(terms).replace(/%20/g, '+')}`, 'page.category': 'Search Results',
        'search.terms': terms, 'search.results_count': none ? 0 : randInt(3, 60),
      }, Math.round(logn(9000, 0.7)));
      if (cat && !none) focusCat = cat;
    } else if (r < 0.3) {
      push('page_view', { 'page.url': `/c/${slug(focusCat)}`, 'page.category': 'Category Listing' }, dwellPage());
    } else if (r < 0.93) {
      const pool = PRODUCTS.filter((p) => p.category === focusCat);
      const p = chance(0.7) ? pickW(pool, pool.map((x) => x.weight)) : pickW(PRODUCTS, PRODUCT_W);
      viewProduct(p);
    } else {
      push('page_view', { 'page.url': pick(['/help/returns', '/help/shipping', '/account/orders']), 'page.category': chance(0.5) ? 'Help Center' : 'Account' }, dwellPage());
    }
  }

  // cart
  const cart = [];
  const cartCandidates = viewed.filter((p) => !p.neverCart);
  if (cartCandidates.length && chance(Math.min(0.8, buyP * 2.4))) {
    const nItems = pickW([1, 2, 3], [70, 23, 7]);
    for (let k = 0; k < nItems; k++) {
      const p = pick(cartCandidates);
      if (cart.find((c) => c.p === p)) continue;
      const qty = pickW([1, 2, 3], [84, 12, 4]);
      push('add_to_cart', {
        'page.url': productUrl(p), 'page.category': 'Product Detail',
        'product.id': p.id, 'product.name': p.name, 'product.category': p.category, 'product.price': p.price,
        'cart.quantity': qty,
      }, Math.round(rand(800, 4000)));
      cart.push({ p, qty });
    }
    if (chance(0.35)) push('page_view', { 'page.url': '/cart', 'page.category': 'Cart' }, dwellPage());
    if (chance(0.62)) {
      push('checkout', { 'page.url': '/checkout', 'page.category': 'Checkout' }, Math.round(logn(95000, 0.5)));
      if (chance(0.62 * (experiment === 'checkout_v2' ? 1.15 : 1))) {
        orderSeq++;
        const orderId = `ORD-${String(250000 + orderSeq * 13)}`;
        const subtotal = round2(cart.reduce((s, c) => s + c.p.price * c.qty, 0));
        const coupon = chance(user ? 0.22 : 0.1) ? pickW(['WELCOME10', 'SUMMER15', 'VIP20', 'FALL10'], [4, 3, user?.segment === 'vip' ? 5 : 0.3, 2]) : null;
        const pct = coupon ? Number(coupon.replace(/\D/g, '')) / 100 : 0;
        const discount = round2(subtotal * pct);
        const shipping = subtotal - discount >= 75 ? 0 : 6.99;
        const total = round2(subtotal - discount + shipping);
        push('purchase', {
          'page.url': '/checkout/confirmation', 'page.category': 'Order Confirmation',
          'order.id': orderId, 'order.total': total, 'order.item_count': cart.reduce((s, c) => s + c.qty, 0),
          'order.shipping_cost': shipping, 'order.discount': discount, 'order.coupon_code': coupon,
          'order.items': cart.map((c) => ({
            product_id: c.p.id, product_name: c.p.name, product_category: c.p.category, quantity: c.qty, unit_price: c.p.price,
          })),
        }, null);
        // refunds: a share of orders come back days later
        if (chance(0.1)) {
          const when = t + rand(2, 21) * DAY;
          const full = chance(0.6);
          const amount = full ? total : round2(cart[0].p.price * (chance(0.5) ? 1 : 0.5));
          refunds.push({ when, user, device, browser, geo, orderId, amount,
            reason: pickW(['Damaged item', 'Wrong size', 'Changed mind', 'Late delivery', 'Not as described'], [22, 20, 25, 13, 20]) });
        }
      }
    }
  }

  // last event of a session has no measured dwell time
  list.forEach((e, i) => {
    const doc = { '@timestamp': new Date(Math.round(e.ts)).toISOString(), 'event.action': e.action, ...base(), ...e.fields };
    const isLast = i === list.length - 1;
    if (e.action !== 'purchase' && !(isLast && e.action === 'page_view')) doc['event.duration_ms'] = Math.round(e.dwell ?? 0);
    events.push(doc);
  });
}

for (let day = START; day < NOW; day += DAY) {
  const n = Math.round(7.2 * dayFactor(day) * rand(0.8, 1.2));
  for (let i = 0; i < n; i++) {
    const hour = pickW([...Array(24).keys()], HOUR_W);
    const t0 = day + hour * 3600000 + rand(0, 3600000);
    if (t0 >= NOW - 2 * 3600000) continue;
    makeSession(t0);
  }
}

for (const r of refunds) {
  if (r.when >= NOW) continue;
  sessionSeq++;
  const doc = {
    '@timestamp': new Date(Math.round(r.when)).toISOString(),
    'event.action': 'refund',
    'session.id': `s-${(sessionSeq * 7919 + 100003).toString(36)}`,
    'device.type': r.device,
    'browser.name': r.browser,
    'geo.country_name': r.geo.country,
    'geo.city_name': r.geo.city,
    'referrer.source': 'direct',
    'page.url': r.user ? '/account/orders' : '/help/returns',
    'page.category': r.user ? 'Account' : 'Help Center',
    'order.id': r.orderId,
    'refund.amount': r.amount,
    'refund.reason': r.reason,
  };
  if (r.user) {
    doc['user.id'] = r.user.id;
    doc['user.name'] = r.user.name;
    doc['user.segment'] = r.user.segment;
    doc['user.signup_date'] = new Date(r.user.signup).toISOString();
  }
  events.push(doc);
}

events.sort((a, b) => (a['@timestamp'] < b['@timestamp'] ? -1 : a['@timestamp'] > b['@timestamp'] ? 1 : 0));

// ---------------------------------------------------------------- to nested source documents
function toSource(flat) {
  const out = {};
  for (const [k, v] of Object.entries(flat)) {
    if (v === null || v === undefined) continue;
    if (k === '@timestamp') { out[k] = v; continue; }
    const parts = k.split('.');
    let o = out;
    for (let i = 0; i < parts.length - 1; i++) o = o[parts[i]] ??= {};
    o[parts[parts.length - 1]] = v;
  }
  return out;
}

const kw = { type: 'keyword' };
function mapping(withExperiment) {
  const props = {
    '@timestamp': { type: 'date' },
    event: { properties: { action: kw, duration_ms: { type: 'long' } } },
    session: { properties: { id: kw } },
    user: { properties: { id: kw, name: kw, segment: kw, signup_date: { type: 'date' } } },
    device: { properties: { type: kw } },
    browser: { properties: { name: kw } },
    geo: { properties: { country_name: kw, city_name: kw } },
    page: { properties: { url: kw, category: kw } },
    product: { properties: { id: kw, name: kw, category: kw, price: { type: 'double' } } },
    cart: { properties: { quantity: { type: 'integer' } } },
    order: {
      properties: {
        id: kw,
        total: { type: 'double' },
        item_count: { type: 'integer' },
        shipping_cost: { type: 'double' },
        discount: { type: 'double' },
        coupon_code: kw,
        items: {
          type: 'nested',
          properties: {
            product_id: kw, product_name: kw, product_category: kw,
            quantity: { type: 'integer' }, unit_price: { type: 'double' },
          },
        },
      },
    },
    refund: { properties: { amount: { type: 'double' }, reason: kw } },
    search: {
      properties: {
        terms: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
        results_count: { type: 'integer' },
      },
    },
    referrer: { properties: { source: kw } },
  };
  if (withExperiment) props.experiment = { properties: { variant: kw } };
  return { properties: props };
}

rmSync(OUT, { recursive: true, force: true });
const MONTHS = ['2025.07', '2025.08', '2025.09', '2025.10'];
const counts = {};
for (const m of MONTHS) {
  const prefix = m.replace('.', '-');
  const docs = events.filter((e) => e['@timestamp'].startsWith(prefix));
  const dir = join(OUT, 'indices', `events-${m}`);
  mkdirSync(dir, { recursive: true });
  // the A/B test field only exists from October on
  writeFileSync(join(dir, 'mapping.json'), JSON.stringify(mapping(m === '2025.10'), null, 2) + '\n');
  writeFileSync(join(dir, 'docs.ndjson'), docs.map((d) => JSON.stringify(toSource(d))).join('\n') + '\n');
  counts[`events-${m}`] = docs.length;
}
writeFileSync(join(OUT, 'aliases.json'), JSON.stringify({ events: MONTHS.map((m) => `events-${m}`) }, null, 2) + '\n');
writeFileSync(join(OUT, 'security.json'), JSON.stringify({
  users: [{ username: 'elastic', password: 'changeme', roles: ['superuser'], cluster: ['all'],
    indices: [{ names: ['*'], privileges: ['all'] }] }],
}, null, 2) + '\n');

const byAction = {};
for (const e of events) byAction[e['event.action']] = (byAction[e['event.action']] ?? 0) + 1;
console.log(JSON.stringify({ total: events.length, sessions: sessionSeq, orders: orderSeq, counts, byAction }, null, 2));
