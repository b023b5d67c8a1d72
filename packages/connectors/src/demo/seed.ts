/**
 * The demo shop data set: generated from a fixed seed (mulberry32), so every install holds exactly
 * the same rows: 1,200 customers, 98 products, 4,000 orders between July 2022 and June 2026, about
 * 9,200 order lines, 3,700 payments and 900 reviews (about 19,000 rows), with realistic gaps (null e-mails, cities,
 * brands, coupons, discounts) so questions about missing data have answers too.
 */
import { seededRandom } from '@aqs/contracts';

export const DEMO_SCHEMA_VERSION = 'aqs-demo-shop v1';

export const DEMO_DDL = `
CREATE SCHEMA shop;
COMMENT ON SCHEMA shop IS '${DEMO_SCHEMA_VERSION}';

CREATE TABLE shop.customers (
  customer_id integer PRIMARY KEY,
  full_name text NOT NULL,
  email text,
  country text NOT NULL,
  city text,
  segment text NOT NULL CHECK (segment IN ('consumer', 'small_business', 'enterprise')),
  signup_date date NOT NULL
);
COMMENT ON TABLE shop.customers IS 'People and companies who created an account in the shop.';
COMMENT ON COLUMN shop.customers.customer_id IS 'Unique customer identifier.';
COMMENT ON COLUMN shop.customers.full_name IS 'Customer name as entered at sign-up.';
COMMENT ON COLUMN shop.customers.email IS 'Contact e-mail; null when the customer did not give one.';
COMMENT ON COLUMN shop.customers.country IS 'Country of the billing address (English name).';
COMMENT ON COLUMN shop.customers.city IS 'City of the billing address; null when unknown.';
COMMENT ON COLUMN shop.customers.segment IS 'Customer segment: consumer, small_business or enterprise.';
COMMENT ON COLUMN shop.customers.signup_date IS 'Day the account was created.';

CREATE TABLE shop.products (
  product_id integer PRIMARY KEY,
  sku text NOT NULL UNIQUE,
  product_name text NOT NULL,
  category text NOT NULL,
  brand text,
  price numeric(10, 2) NOT NULL,
  unit_cost numeric(10, 2),
  launched_on date NOT NULL,
  discontinued_on date
);
COMMENT ON TABLE shop.products IS 'Catalogue of products sold by the shop.';
COMMENT ON COLUMN shop.products.category IS 'Product category, e.g. Electronics, Home, Books.';
COMMENT ON COLUMN shop.products.brand IS 'Brand name; null for unbranded products.';
COMMENT ON COLUMN shop.products.price IS 'Current list price in EUR.';
COMMENT ON COLUMN shop.products.unit_cost IS 'Purchase cost in EUR; null when not recorded.';
COMMENT ON COLUMN shop.products.discontinued_on IS 'Day the product left the catalogue; null while still sold.';

CREATE TABLE shop.orders (
  order_id integer PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES shop.customers (customer_id),
  ordered_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('placed', 'paid', 'shipped', 'delivered', 'cancelled', 'returned')),
  channel text NOT NULL CHECK (channel IN ('web', 'mobile_app', 'marketplace', 'phone')),
  discount_pct numeric(5, 2),
  coupon_code text,
  shipping_country text NOT NULL
);
COMMENT ON TABLE shop.orders IS 'One row per order placed by a customer.';
COMMENT ON COLUMN shop.orders.ordered_at IS 'When the order was placed (UTC).';
COMMENT ON COLUMN shop.orders.status IS 'Lifecycle status: placed, paid, shipped, delivered, cancelled or returned.';
COMMENT ON COLUMN shop.orders.channel IS 'Sales channel: web, mobile_app, marketplace or phone.';
COMMENT ON COLUMN shop.orders.discount_pct IS 'Discount applied to the whole order, in percent; null when none.';
COMMENT ON COLUMN shop.orders.coupon_code IS 'Coupon used at checkout; null when none.';

CREATE TABLE shop.order_items (
  order_id integer NOT NULL REFERENCES shop.orders (order_id),
  line_no integer NOT NULL,
  product_id integer NOT NULL REFERENCES shop.products (product_id),
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price numeric(10, 2) NOT NULL,
  PRIMARY KEY (order_id, line_no)
);
COMMENT ON TABLE shop.order_items IS 'Order lines: which products an order contains.';
COMMENT ON COLUMN shop.order_items.unit_price IS 'Price per unit in EUR at the time of the order, before the order discount.';

CREATE TABLE shop.payments (
  payment_id integer PRIMARY KEY,
  order_id integer NOT NULL REFERENCES shop.orders (order_id),
  paid_at timestamptz NOT NULL,
  method text NOT NULL,
  amount numeric(12, 2) NOT NULL
);
COMMENT ON TABLE shop.payments IS 'Payments received for orders (refunds are negative amounts).';
COMMENT ON COLUMN shop.payments.method IS 'Payment method: card, paypal, bank_transfer or gift_card.';

CREATE TABLE shop.reviews (
  review_id integer PRIMARY KEY,
  product_id integer NOT NULL REFERENCES shop.products (product_id),
  customer_id integer NOT NULL REFERENCES shop.customers (customer_id),
  rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
  reviewed_on date NOT NULL,
  comment text
);
COMMENT ON TABLE shop.reviews IS 'Product reviews written by customers.';
COMMENT ON COLUMN shop.reviews.rating IS 'Stars from 1 (worst) to 5 (best).';
COMMENT ON COLUMN shop.reviews.comment IS 'Free text; null when the customer left stars only.';

CREATE VIEW shop.order_totals AS
SELECT o.order_id, o.customer_id, o.ordered_at, o.status, o.channel,
       sum(i.quantity)::integer AS items,
       sum(i.quantity * i.unit_price)::numeric(12, 2) AS gross_amount,
       round(sum(i.quantity * i.unit_price) * (1 - coalesce(o.discount_pct, 0) / 100), 2)::numeric(12, 2) AS net_amount
FROM shop.orders o JOIN shop.order_items i ON i.order_id = o.order_id
GROUP BY o.order_id;
COMMENT ON VIEW shop.order_totals IS 'Orders with their item count and amounts (gross, and net of the order discount).';
`;

const FIRST = [
  'Anna',
  'Ben',
  'Chloé',
  'David',
  'Elena',
  'Farid',
  'Greta',
  'Hiroshi',
  'Ines',
  'Jonas',
  'Kofi',
  'Lena',
  'Marco',
  'Nora',
  'Olga',
  'Pedro',
  'Quinn',
  'Rosa',
  'Sven',
  'Tara',
  'Umar',
  'Vera',
  'Wim',
  'Ximena',
  'Yusuf',
  'Zoe',
];
const LAST = [
  'Andersen',
  'Bauer',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'García',
  'Horvat',
  'Ivanova',
  'Jansen',
  'Kowalski',
  'Lefebvre',
  'Müller',
  'Nowak',
  "O'Brien",
  'Papadopoulos',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Usman',
  'Varga',
  'Weber',
  'Yilmaz',
  'Zeller',
];
const COMPANY = [
  'Acme',
  'Northwind',
  'Globex',
  'Initech',
  'Umbrella',
  'Stark',
  'Wayne',
  'Hooli',
  'Vandelay',
  'Soylent',
];
const PLACES: Array<[string, string[], number]> = [
  ['Germany', ['Berlin', 'Munich', 'Hamburg', 'Cologne', 'Leipzig'], 22],
  ['France', ['Paris', 'Lyon', 'Marseille', 'Toulouse', 'Lille'], 18],
  ['United Kingdom', ['London', 'Manchester', 'Leeds', 'Bristol', 'Glasgow'], 15],
  ['Netherlands', ['Amsterdam', 'Rotterdam', 'Utrecht', 'Eindhoven'], 9],
  ['Spain', ['Madrid', 'Barcelona', 'Valencia', 'Seville'], 10],
  ['Italy', ['Rome', 'Milan', 'Turin', 'Naples', 'Bologna'], 10],
  ['Poland', ['Warsaw', 'Kraków', 'Gdańsk', 'Wrocław'], 7],
  ['Sweden', ['Stockholm', 'Gothenburg', 'Malmö'], 5],
  ['United States', ['New York', 'Chicago', 'Austin', 'Seattle', 'Boston'], 4],
];
const CATEGORIES: Array<[string, string[], [number, number], string[]]> = [
  [
    'Electronics',
    [
      'Wireless Earbuds',
      'USB-C Hub',
      'Smart Speaker',
      '4K Monitor',
      'Mechanical Keyboard',
      'Webcam',
      'Power Bank',
      'Noise-Cancelling Headphones',
    ],
    [19, 649],
    ['Voltra', 'Kestrel', 'Nimbus'],
  ],
  [
    'Home & Kitchen',
    [
      'Chef Knife',
      'Espresso Grinder',
      'Cast Iron Pan',
      'Linen Sheets',
      'Air Purifier',
      'Kettle',
      'Storage Jars',
      'Desk Lamp',
    ],
    [12, 299],
    ['Hearth', 'Maison', 'Oakline'],
  ],
  [
    'Books',
    [
      'Data Analysis Handbook',
      'Cookbook of the Seasons',
      'Travel Guide: Alps',
      'Sci-Fi Anthology',
      'History of Maps',
      'Gardening Basics',
    ],
    [9, 45],
    [],
  ],
  [
    'Sports & Outdoors',
    ['Yoga Mat', 'Trail Running Shoes', 'Camping Stove', 'Water Bottle', 'Cycling Gloves', 'Hiking Backpack'],
    [14, 189],
    ['Summit', 'Stride'],
  ],
  [
    'Toys & Games',
    [
      'Building Blocks Set',
      'Board Game: Harbour',
      'Puzzle 1000 pcs',
      'Remote Control Car',
      'Card Game Deluxe',
    ],
    [8, 119],
    ['Playwell', 'Brightkid'],
  ],
  [
    'Beauty',
    ['Face Serum', 'Hand Cream', 'Shampoo Bar', 'Sunscreen SPF 50', 'Lip Balm Trio'],
    [6, 79],
    ['Lumière', 'Pure&Co'],
  ],
];
const STATUS_WEIGHTS: Array<[string, number]> = [
  ['delivered', 62],
  ['shipped', 8],
  ['paid', 5],
  ['placed', 4],
  ['cancelled', 12],
  ['returned', 9],
];
const CHANNEL_WEIGHTS: Array<[string, number]> = [
  ['web', 48],
  ['mobile_app', 30],
  ['marketplace', 16],
  ['phone', 6],
];
const COUPONS = ['WELCOME10', 'SPRING15', 'BLACKFRIDAY', 'LOYAL5', 'FREESHIP'];
const METHODS: Array<[string, number]> = [
  ['card', 60],
  ['paypal', 25],
  ['bank_transfer', 10],
  ['gift_card', 5],
];
const COMMENTS = [
  'Great value for money.',
  'Arrived quickly, works as described.',
  'Not what I expected.',
  'Would buy again!',
  'Quality could be better.',
  'Perfect gift.',
  'Stopped working after a month.',
  'Exactly as pictured.',
];

const START = Date.UTC(2022, 6, 1); // 2022-07-01
const END = Date.UTC(2026, 5, 30, 23, 59, 59); // 2026-06-30
const DAY = 86_400_000;

export interface DemoRows {
  customers: unknown[][];
  products: unknown[][];
  orders: unknown[][];
  order_items: unknown[][];
  payments: unknown[][];
  reviews: unknown[][];
}

/** Generates every row of the demo data set from the fixed seed. */
export function generateDemoRows(seed = 20260630): DemoRows {
  const rnd = seededRandom(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const weighted = <T>(xs: ReadonlyArray<readonly [T, number]>): T => {
    const total = xs.reduce((n, [, w]) => n + w, 0);
    let r = rnd() * total;
    for (const [v, w] of xs) {
      r -= w;
      if (r < 0) return v;
    }
    return (xs[xs.length - 1] as readonly [T, number])[0];
  };
  const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
  const ts = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString();
  const money = (n: number): string => n.toFixed(2);

  const customers: unknown[][] = [];
  const customerSignup: number[] = [];
  const customerCountry: string[] = [];
  for (let id = 1; id <= 1200; id++) {
    const segment = weighted([
      ['consumer', 80],
      ['small_business', 15],
      ['enterprise', 5],
    ] as const);
    const first = pick(FIRST);
    const last = pick(LAST);
    const name =
      segment === 'consumer'
        ? `${first} ${last}`
        : `${pick(COMPANY)} ${segment === 'enterprise' ? 'Group' : 'GmbH'} (${first} ${last})`;
    const [country, cities] = weighted(PLACES.map(([c, cs, w]) => [[c, cs] as const, w] as const));
    // Sign-ups lean towards the early years so long-standing customers exist.
    const firstSignup = START - 180 * DAY;
    const signup = firstSignup + Math.floor(Math.pow(rnd(), 1.4) * (END - 30 * DAY - firstSignup));
    const email =
      rnd() < 0.07
        ? null
        : `${first}.${last}.${id}@example.com`
            .toLowerCase()
            .normalize('NFD')
            .replace(/[^\x20-\x7e]/g, '')
            .replace(/[' ]/g, '');
    const city = rnd() < 0.05 ? null : pick(cities);
    customers.push([id, name, email, country, city, segment, day(signup)]);
    customerSignup.push(signup);
    customerCountry.push(country);
  }

  const products: unknown[][] = [];
  const productPrice: number[] = [];
  const productWeight: number[] = [];
  let pid = 0;
  for (const [category, names, [lo, hi], brands] of CATEGORIES) {
    for (const base of names) {
      for (const variant of ['', ' Pro', ' Mini'].slice(0, int(2, 3))) {
        pid++;
        const price =
          Math.round(
            (lo + Math.pow(rnd(), 1.8) * (hi - lo)) *
              (variant === ' Pro' ? 1.4 : variant === ' Mini' ? 0.7 : 1),
          ) - 0.01;
        const launched = START - 365 * DAY + int(0, 3 * 365) * DAY;
        const discontinued = rnd() < 0.12 ? launched + int(200, 1100) * DAY : null;
        products.push([
          pid,
          `${category.slice(0, 3).toUpperCase()}-${String(pid).padStart(4, '0')}`,
          `${base}${variant}`,
          category,
          brands.length === 0 || rnd() < 0.1 ? null : pick(brands),
          money(Math.max(price, 4.99)),
          rnd() < 0.15 ? null : money(Math.max(price, 4.99) * (0.35 + rnd() * 0.3)),
          day(launched),
          discontinued !== null && discontinued < END ? day(discontinued) : null,
        ]);
        productPrice.push(Math.max(price, 4.99));
        productWeight.push(1 + Math.floor(rnd() * 10));
      }
    }
  }
  const weightedProducts = productPrice.map((_, i) => [i + 1, productWeight[i] ?? 1] as const);

  const orders: unknown[][] = [];
  const items: unknown[][] = [];
  const payments: unknown[][] = [];
  let paymentId = 0;
  for (let id = 1; id <= 4000; id++) {
    // Orders grow over time (a young shop) with a December peak.
    let at = 0;
    for (let tries = 0; tries < 8; tries++) {
      at = START + Math.floor(Math.sqrt(rnd()) * (END - START));
      const month = new Date(at).getUTCMonth();
      if (month === 10 || month === 11 || rnd() < 0.8) break;
    }
    let customer = int(1, 1200);
    for (let tries = 0; tries < 5 && (customerSignup[customer - 1] ?? 0) > at; tries++)
      customer = int(1, 1200);
    const recent = END - at < 20 * DAY;
    const status = recent
      ? weighted([
          ['placed', 30],
          ['paid', 30],
          ['shipped', 30],
          ['cancelled', 10],
        ] as const)
      : weighted(STATUS_WEIGHTS);
    const channel = weighted(CHANNEL_WEIGHTS);
    const coupon = rnd() < 0.18 ? pick(COUPONS) : null;
    const discount = coupon ? money(pick([5, 10, 15, 20])) : rnd() < 0.05 ? money(int(1, 30)) : null;
    const shipTo = rnd() < 0.95 ? (customerCountry[customer - 1] ?? 'Germany') : pick(PLACES)[0];
    orders.push([id, customer, ts(at), status, channel, discount, coupon, shipTo]);
    const lines = weighted([
      [1, 35],
      [2, 30],
      [3, 18],
      [4, 10],
      [5, 5],
      [6, 2],
    ] as const);
    let gross = 0;
    const used = new Set<number>();
    for (let line = 1; line <= lines; line++) {
      let product = weighted(weightedProducts);
      for (let tries = 0; tries < 3 && used.has(product); tries++) product = weighted(weightedProducts);
      used.add(product);
      const quantity = weighted([
        [1, 70],
        [2, 18],
        [3, 7],
        [4, 3],
        [5, 2],
      ] as const);
      // Prices drift: older orders paid a little less.
      const drift = 0.9 + 0.1 * ((at - START) / (END - START));
      const unit = Math.max(1, (productPrice[product - 1] ?? 10) * drift);
      gross += quantity * Number(unit.toFixed(2));
      items.push([id, line, product, quantity, money(unit)]);
    }
    const net = gross * (1 - (discount ? Number(discount) : 0) / 100);
    if (status !== 'placed' && status !== 'cancelled') {
      paymentId++;
      payments.push([paymentId, id, ts(at + int(60, 3 * 3600) * 1000), weighted(METHODS), money(net)]);
      if (status === 'returned') {
        paymentId++;
        payments.push([paymentId, id, ts(at + int(10, 40) * DAY), 'card', money(-net)]);
      }
    }
  }

  const reviews: unknown[][] = [];
  for (let id = 1; id <= 900; id++) {
    const item = items[int(0, items.length - 1)] as [number, number, number, number, string];
    const order = orders[item[0] - 1] as [number, number, string];
    const base = (productWeight[item[2] - 1] ?? 5) > 5 ? 4 : 3;
    const rating = Math.min(
      5,
      Math.max(
        1,
        base +
          weighted([
            [-2, 8],
            [-1, 15],
            [0, 35],
            [1, 35],
            [2, 7],
          ] as const),
      ),
    );
    const when = Math.min(END, Date.parse(order[2]) + int(3, 60) * DAY);
    reviews.push([id, item[2], order[1], rating, day(when), rnd() < 0.4 ? null : pick(COMMENTS)]);
  }

  return { customers, products, orders, order_items: items, payments, reviews };
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return String(v);
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** INSERT statements for every table, in foreign-key order, a few thousand rows per statement. */
export function insertStatements(rows: DemoRows): string[] {
  const out: string[] = [];
  for (const table of ['customers', 'products', 'orders', 'order_items', 'payments', 'reviews'] as const) {
    const list = rows[table];
    for (let i = 0; i < list.length; i += 2500) {
      const values = list
        .slice(i, i + 2500)
        .map((r) => `(${r.map(literal).join(',')})`)
        .join(',\n');
      out.push(`INSERT INTO shop.${table} VALUES\n${values};`);
    }
  }
  return out;
}
