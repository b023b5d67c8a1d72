/** Text helpers shared by context building and the offline parser: tokens, lemmas, synonyms. */

export interface Token {
  /** Lower-cased surface form. */
  text: string;
  /** Singular / base form used for matching. */
  lemma: string;
  start: number;
  end: number;
}

const TOKEN_RE = /[\p{L}\p{N}@_/$][\p{L}\p{N}@_./:$%-]*/gu;

export function normalize(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/'s\b/g, '')
      // `1,000` and `12,500,000`: thousands separators are not word breaks.
      .replace(/(\d),(?=\d{3}\b)/g, '$1')
      // `what % of tickets`: the sign is a word.
      .replace(/(^|\s)%(\s|$)/g, '$1percent$2')
      .replace(/(\d)\s*%/g, '$1 percent')
  );
}

/**
 * A table keyed by the user's words, without a prototype: `constructor`, `toString` or `__proto__`
 * in a question is a word like any other, never one of Object's members.
 */
export function wordTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

const IRREGULAR: Readonly<Record<string, string>> = wordTable({
  people: 'person',
  children: 'child',
  men: 'man',
  women: 'woman',
  data: 'data',
  status: 'status',
  statuses: 'status',
  analyses: 'analysis',
  countries: 'country',
  cities: 'city',
  categories: 'category',
  series: 'series',
  indices: 'index',
  bytes: 'byte',
  sales: 'sale',
  news: 'news',
  address: 'address',
  addresses: 'address',
  business: 'business',
  gross: 'gross',
  plus: 'plus',
  previous: 'previous',
  various: 'various',
  bus: 'bus',
  class: 'class',
  classes: 'class',
});

/** A light singulariser: enough to match `orders` with `order` and `countries` with `country`. */
export function lemma(word: string): string {
  const w = word.toLowerCase();
  const irregular = IRREGULAR[w];
  if (irregular) return irregular;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ches|shes|xes|sses|zzes)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('ss') || w.endsWith('us') || w.endsWith('is')) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    let raw = m[0];
    while (raw.length > 1 && /[.:\-/%]$/.test(raw) && !/^\/+$/.test(raw)) raw = raw.slice(0, -1);
    const start = m.index ?? 0;
    out.push({ text: raw, lemma: lemma(raw), start, end: start + raw.length });
  }
  return out;
}

/** Splits an identifier (`http.response.status_code`, `createdAt`, `@timestamp`) into word lemmas. */
export function identifierWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0)
    .map(lemma);
}

/** Words that carry no meaning for matching. */
export const STOPWORDS = new Set(
  `a an the of in on at to for from with by per and or is are was were be been being do does did has have had
  what which who whom whose when where why how me my our we us you your i it its this that these those there
  show display give list get find tell see plot chart graph draw visualize visualise please can could would will
  just only also now then instead same again all any each every some as into over under than about across
  between since until till before after during within last past previous next this today yesterday ago
  number count many much total sum average avg mean median minimum min maximum max distinct unique different
  top bottom most least highest lowest largest smallest biggest best worst more less fewer greater above below
  first latest recent newest oldest group grouped broken down split breakdown value values amount data`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/**
 * What users say -> words that appear in column names. Checked in order: the first synonym naming a
 * column wins, so `revenue` prefers a column called revenue, then amount/total, then price.
 */
export const SYNONYMS: Readonly<Record<string, string[]>> = wordTable({
  revenue: [
    'revenue',
    'net_amount',
    'total_amount',
    'amount',
    'total',
    'sales',
    'subtotal',
    'line_total',
    'gross_amount',
    'unit_price',
  ],
  sale: [
    'sales',
    'revenue',
    'net_amount',
    'total_amount',
    'amount',
    'total',
    'subtotal',
    'line_total',
    'unit_price',
  ],
  turnover: ['revenue', 'total_amount', 'amount', 'total'],
  income: ['revenue', 'income', 'total_amount', 'amount', 'total'],
  spend: ['total_amount', 'amount', 'total', 'spend', 'spent', 'cost', 'expense'],
  spending: ['total_amount', 'amount', 'total', 'spend', 'spent', 'cost', 'expense'],
  expense: ['expense', 'cost', 'amount'],
  gmv: ['total_amount', 'amount', 'total', 'revenue'],
  cost: ['cost', 'unit_cost', 'price'],
  price: ['price', 'unit_price', 'list_price'],
  value: ['total_amount', 'amount', 'value', 'total'],
  quantity: ['quantity', 'qty', 'units'],
  unit: ['quantity', 'qty', 'units'],
  size: ['bytes', 'size'],
  byte: ['bytes', 'size'],
  traffic: ['bytes'],
  bandwidth: ['bytes'],
  latency: ['duration', 'latency', 'response_time', 'took'],
  duration: ['duration', 'latency', 'response_time', 'took'],
  country: ['country', 'country_name', 'country_code', 'country_iso_code'],
  nation: ['country', 'country_name'],
  city: ['city', 'city_name'],
  browser: ['user_agent', 'browser'],
  agent: ['user_agent'],
  method: ['method', 'request_method'],
  verb: ['method'],
  url: ['path', 'url', 'original'],
  page: ['path', 'url'],
  path: ['path'],
  endpoint: ['path', 'url'],
  outcome: ['outcome', 'result'],
  result: ['outcome', 'result'],
  plan: ['plan', 'tier'],
  tier: ['tier', 'plan', 'segment'],
  segment: ['segment', 'tier'],
  category: ['category', 'category_name'],
  channel: ['channel', 'source'],
  state: ['status', 'state'],
  region: ['region', 'state', 'country'],
  ip: ['ip', 'client_ip'],
  code: ['status_code', 'code'],
  client: ['client', 'ip', 'client_ip'],
  salary: ['salary'],
  pay: ['salary'],
  gender: ['gender', 'sex'],
  sex: ['gender', 'sex'],
  rating: ['rating', 'score', 'stars'],
  score: ['score', 'rating'],
  email: ['email'],
  name: ['name', 'title'],
  date: ['date', 'created_at', 'timestamp'],
  time: ['timestamp', '@timestamp', 'time', 'date'],
  stock: ['stock', 'stock_quantity', 'inventory'],
  inventory: ['stock', 'stock_quantity', 'inventory'],
  discount: ['discount', 'discount_amount'],
  tax: ['tax', 'tax_amount'],
  signed: ['signup_date', 'signup', 'signed_up_at', 'registered_at', 'created_at'],
  signup: ['signup_date', 'signup', 'registered_at', 'created_at'],
  registered: ['registered_at', 'signup_date', 'created_at'],
  joined: ['joined_at', 'signup_date', 'registered_at', 'created_at'],
  hired: ['hire_date', 'hired_at'],
  born: ['birth_date'],
  shipping: ['shipping', 'shipping_cost', 'shipping_amount'],
});

/** Nouns meaning "rows of the source": `how many requests`, `count of events`. */
export const ROW_NOUNS = new Set([
  'row',
  'record',
  'entry',
  'document',
  'doc',
  'event',
  'hit',
  'request',
  'log',
  'line',
  'visit',
  'pageview',
  'item',
  'transaction',
]);

export const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  fifty: 50,
  hundred: 100,
};

export function parseNumberWord(word: string): number | null {
  if (/^\d+$/.test(word)) return Number(word);
  return NUMBER_WORDS[word] ?? null;
}
