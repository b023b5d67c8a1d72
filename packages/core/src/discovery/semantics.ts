import type { SemanticType } from '@aqs/contracts';

/** What is known of a column when its meaning is guessed: its name and types, and what the data said. */
export interface ColumnFacts {
  name: string;
  /** The query language's type (`keyword`, `integer`, `numeric`, `timestamp`…). */
  type: string;
  native_type: string;
  /** Distinct values among the rows looked at, when counted. */
  distinct?: number | null;
  /** Rows looked at, when counted. */
  rows?: number | null;
  /** The engine analyses this type into words (Elasticsearch `text`): it holds prose, not values. */
  analyzed?: boolean;
}

const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

const NUMBER =
  /^(long|integer|short|byte|double|float|half_float|scaled_float|unsigned_long|number|numeric|decimal|real|bigint|smallint|int|int2|int4|int8|float4|float8|double precision|money|counter_long|counter_double|counter_integer)$/i;
const INTEGER =
  /^(long|integer|short|byte|unsigned_long|bigint|smallint|int|int2|int4|int8|counter_long|counter_integer)$/i;
const TIME =
  /^(date|date_nanos|datetime|timestamp|timestamptz|time|timetz|timestamp with time zone|timestamp without time zone|interval)$/i;
const TEXTUAL =
  /^(keyword|text|match_only_text|wildcard|constant_keyword|character varying|varchar|character|char|bpchar|citext|string|enum|USER-DEFINED|tinytext|mediumtext|longtext)$/i;
const GEO_TYPE = /^(geo_point|geo_shape|point|shape|geometry|geography)$/i;
const IP_TYPE = /^(ip|inet|cidr)$/i;

const MONEY_WORDS = new Set([
  'amount',
  'price',
  'cost',
  'revenue',
  'salary',
  'fee',
  'fees',
  'balance',
  'spend',
  'spent',
  'payment',
  'income',
  'profit',
  'margin',
  'tax',
  'discount',
  'refund',
  'budget',
  'usd',
  'eur',
  'gbp',
  'charge',
  'charges',
  'wage',
  'wages',
  'mrr',
  'arr',
]);
/** Money only when nothing says what is counted (`total` alone is money; `total_visits` is not). */
const WEAK_MONEY_WORDS = new Set(['total', 'subtotal', 'sales', 'paid', 'value']);
const QUANTITY_WORDS = new Set([
  'qty',
  'quantity',
  'count',
  'units',
  'items',
  'stock',
  'inventory',
  'number',
  'num',
  'size',
  'bytes',
  'duration',
  'ms',
  'seconds',
  'minutes',
  'hours',
  'days',
  'age',
  'weight',
  'height',
  'length',
  'score',
  'rating',
  'views',
  'clicks',
  'visits',
  'attempts',
  'retries',
  'latency',
  'took',
  'percent',
  'pct',
  'rate',
]);
/** Shares and rates are quantities even when they are of money (`discount_pct`). */
const RATIO_WORDS = new Set(['pct', 'percent', 'percentage', 'ratio', 'rate', 'share']);
/** Positions and sequence numbers: neither amounts nor categories. */
const ORDINAL_WORDS = new Set(['no', 'seq', 'position', 'rank', 'ordinal', 'index', 'line']);
const CONTACT_WORDS = new Set([
  'email',
  'mail',
  'phone',
  'mobile',
  'fax',
  'url',
  'uri',
  'website',
  'address',
  'street',
]);
const GEO_WORDS = new Set([
  'country',
  'city',
  'region',
  'province',
  'zip',
  'zipcode',
  'postcode',
  'postal',
  'lat',
  'latitude',
  'lon',
  'lng',
  'longitude',
  'geo',
  'location',
  'continent',
  'county',
]);
const NAME_WORDS = new Set([
  'name',
  'title',
  'label',
  'firstname',
  'lastname',
  'surname',
  'username',
  'nickname',
]);
const FREE_TEXT_WORDS = new Set([
  'description',
  'comment',
  'comments',
  'message',
  'body',
  'note',
  'notes',
  'text',
  'content',
  'summary',
  'review',
  'bio',
  'details',
  'remarks',
  'feedback',
]);
const CATEGORY_WORDS = new Set([
  'status',
  'state',
  'type',
  'kind',
  'category',
  'segment',
  'tier',
  'plan',
  'level',
  'method',
  'channel',
  'source',
  'stage',
  'priority',
  'severity',
  'gender',
  'currency',
  'brand',
  'department',
  'role',
  'group',
  'class',
  'mode',
  'env',
  'environment',
  'service',
  'os',
  'browser',
  'platform',
  'lang',
  'language',
  'code',
  'verb',
  'tag',
  'tags',
]);

/** A column that names rows of its own table or another: `id`, `customer_id`, `orderId`, `uuid`, `sku`. */
export function looksLikeIdentifier(name: string): boolean {
  const w = words(name);
  const last = w[w.length - 1] ?? '';
  return (
    last === 'id' || last === 'uuid' || last === 'guid' || last === 'key' || last === 'sku' || name === '_id'
  );
}

/**
 * The meaning of a column, from its name and types, and from the data when it was counted (few
 * distinct values among many rows make a category; a distinct value per row makes an identifier or
 * free text). Money and quantities are numbers; a number named like an identifier is one.
 */
export function semanticTypeOf(column: ColumnFacts): SemanticType {
  const w = words(column.name);
  const head = w[w.length - 1] ?? '';
  const has = (set: Set<string>) => w.some((x) => set.has(x));
  const type = column.type;
  const native = column.native_type;
  const isNumber = NUMBER.test(type) || NUMBER.test(native);
  if (/^bool(ean)?$/i.test(type) || /^bool(ean)?$/i.test(native) || /^(tinyint\(1\))$/i.test(native))
    return 'boolean';
  if (GEO_TYPE.test(type) || GEO_TYPE.test(native)) return 'geo';
  if (TIME.test(type) || TIME.test(native)) return 'datetime';
  if (looksLikeIdentifier(column.name) || IP_TYPE.test(type) || /^uuid$/i.test(native)) return 'identifier';
  if (isNumber) {
    // The last word says what the number is (`line_total` is money, `order_count` a quantity).
    if (RATIO_WORDS.has(head)) return 'quantity';
    if (MONEY_WORDS.has(head) || (WEAK_MONEY_WORDS.has(head) && !has(QUANTITY_WORDS))) return 'money';
    if (/^(zip|zipcode|postcode|postal)$/.test(head)) return 'geo';
    if (/^(year|quarter|month|week)$/.test(head)) return 'datetime';
    if (/^(number|num|nr)$/.test(head) && w.length > 1 && !w.slice(0, -1).some((x) => QUANTITY_WORDS.has(x)))
      return 'identifier';
    if (QUANTITY_WORDS.has(head)) return 'quantity';
    if (has(RATIO_WORDS)) return 'quantity';
    if (has(ORDINAL_WORDS)) return 'other';
    if (has(MONEY_WORDS)) return 'money';
    if (w.some((x) => /^(lat|latitude|lon|lng|longitude)$/.test(x))) return 'geo';
    if (has(QUANTITY_WORDS)) return 'quantity';
    if (has(WEAK_MONEY_WORDS)) return 'money';
    // An integer with a handful of values among many rows is a code (a status, a rating), not an amount.
    if (INTEGER.test(type) && lowCardinality(column)) return 'category';
    return 'quantity';
  }
  if (TEXTUAL.test(type) || TEXTUAL.test(native)) {
    if (w[0] === 'is' || w[0] === 'has') return 'boolean';
    // The last word first: `content_type` and `review_status` are categories, `product_name` a name.
    if (CATEGORY_WORDS.has(head) && !column.analyzed) return 'category';
    if (NAME_WORDS.has(head)) return 'name';
    if (has(CONTACT_WORDS)) return 'other';
    if (has(GEO_WORDS)) return 'geo';
    if (has(NAME_WORDS)) return 'name';
    if (has(FREE_TEXT_WORDS) || column.analyzed)
      return lowCardinality(column) && !has(FREE_TEXT_WORDS) ? 'category' : 'free_text';
    if (has(CATEGORY_WORDS) || lowCardinality(column)) return 'category';
    // Mostly different values (a code per row, a host name): not worth grouping by.
    return column.distinct != null && column.rows != null && column.distinct * 2 > column.rows
      ? 'other'
      : 'category';
  }
  return 'other';
}

/** At most 50 distinct values, and each seen on two rows or more on average. */
function lowCardinality(column: ColumnFacts): boolean {
  if (column.distinct == null || column.rows == null || column.rows === 0) return false;
  return column.distinct <= 50 && column.distinct * 2 <= column.rows;
}

/** `customer_id` -> [`customer`]; `customerId` -> [`customer`]; `id` -> []. */
export function referencedStem(name: string): string[] {
  const w = words(name);
  if (w.length < 2 || !looksLikeIdentifier(name)) return [];
  return w.slice(0, -1);
}

/** Singular forms a table may be named by: `customers` -> `customer`, `categories` -> `category`. */
export function singular(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(sses|[^aeiou]uses|ches|shes|xes|zes)$/.test(word)) return word.slice(0, -2);
  // `status`, `address`, `analysis`: already singular.
  if (/(ss|us|is)$/.test(word)) return word;
  if (/s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Whether a table's (unqualified) name stands for what `stem` names: `customers` for [`customer`]. */
export function tableNamedBy(tableName: string, stem: string[]): boolean {
  if (stem.length === 0) return false;
  const table = words(tableName).map(singular).join('_');
  const wanted = stem.map(singular).join('_');
  return table === wanted || table.endsWith(`_${wanted}`);
}

/** A readable label for a relationship: `orders.customer_id -> customers.id` is "order of customer". */
export function relationshipName(fromTable: string, toTable: string): string {
  const last = (name: string) => singular(words(name.split('.').pop() ?? name).join(' '));
  return `${last(fromTable)} of ${last(toTable)}`;
}
