/**
 * PostgreSQL refuses NUL in text and jsonb, and lone UTF-16 surrogates in jsonb. Whatever a data
 * source returns (values, column names, error text) may hold either, so data that comes from one is
 * made storable before it is written: each NUL and each unpaired surrogate becomes U+FFFD. Input
 * from our own clients never gets here with them: the HTTP layer refuses it with a 422.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function hasUnstorableText(text: string): boolean {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(text);
}

export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** A deep copy with every string (keys included) made storable; other values are kept as they are. */
export function sanitizeForStore<T>(value: T): T {
  return sanitize(value) as T;
}

function sanitize(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(sanitize);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), sanitize(v)]));
  }
  return value;
}
