/**
 * Text the API accepts, checked once at the edge for every route: the body must be valid UTF-8 (400,
 * never silently replaced), the URL's percent-encoding must decode to valid UTF-8 (400), and no
 * string anywhere (body values and keys, path, query parameters, tRPC `input`) may hold a NUL or an
 * unpaired UTF-16 surrogate (422 naming the field). PostgreSQL cannot store either, so without this
 * they surfaced as 500s from whichever query touched them first.
 */
import type { FieldError } from '@aqs/contracts';
import { DomainError } from '@aqs/core';
import { MAX_LISTED_ERRORS } from '@aqs/api';

// eslint-disable-next-line no-control-regex
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DomainError('bad_request', `The ${what} is not valid UTF-8. Send text encoded as UTF-8.`);
  }
}

function unsafeMessage(text: string): string {
  return text.includes('\u0000')
    ? 'must not contain a NUL character (\\u0000); remove it'
    : 'must not contain an unpaired UTF-16 surrogate; send valid Unicode text';
}

/** Collects field errors for every unsafe string (keys included) under `value`, at most MAX_LISTED_ERRORS. */
function collect(value: unknown, path: string, out: FieldError[]): void {
  if (out.length >= MAX_LISTED_ERRORS) return;
  if (typeof value === 'string') {
    if (UNSAFE.test(value)) out.push({ field: path || 'body', message: unsafeMessage(value) });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => collect(item, path ? `${path}.${i}` : String(i), out));
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const safeKey = UNSAFE.test(key) ? JSON.stringify(key).slice(1, -1).slice(0, 100) : key.slice(0, 100);
      const field = path ? `${path}.${safeKey}` : safeKey;
      if (UNSAFE.test(key)) out.push({ field, message: `has a name that ${unsafeMessage(key)}` });
      else collect(item, field, out);
      if (out.length >= MAX_LISTED_ERRORS) return;
    }
  }
}

function refuse(errors: FieldError[]): void {
  if (errors.length > 0)
    throw new DomainError('validation', 'The request holds text that cannot be accepted.', {
      fields: errors,
    });
}

/** Checks a JSON body's strings; a body that is not JSON is left to the adapters (400 there). */
export function assertSafeJsonText(text: string): void {
  if (!UNSAFE.test(text) && !text.includes('\\u')) return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  const errors: FieldError[] = [];
  collect(value, '', errors);
  refuse(errors);
}

function decodeComponent(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new DomainError(
      'bad_request',
      `The ${what} has percent-encoding that is not valid UTF-8 (for example a lone %C3). Encode the text as UTF-8.`,
    );
  }
}

/**
 * Checks the path and the query string as sent (before any adapter decodes them, possibly replacing
 * invalid bytes). tRPC's `input` parameter is JSON, so its strings are checked like a body's.
 */
export function assertSafeUrl(rawUrl: string): void {
  // What the checks refuse can only arrive percent-encoded, or as a JSON escape (`\u0000`) in tRPC's
  // input: the request line itself holds neither NUL nor surrogates.
  if (!rawUrl.includes('%') && !rawUrl.includes('\\')) return;
  const url = new URL(rawUrl);
  const errors: FieldError[] = [];
  const path = decodeComponent(url.pathname, 'URL path');
  if (UNSAFE.test(path)) errors.push({ field: 'path', message: unsafeMessage(path) });
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq < 0 ? pair : pair.slice(0, eq), 'query string');
    const value = decodeComponent(eq < 0 ? '' : pair.slice(eq + 1), 'query string');
    if (UNSAFE.test(name))
      errors.push({ field: 'query', message: `has a parameter name that ${unsafeMessage(name)}` });
    else if (name === 'input' && url.pathname.startsWith('/trpc/')) {
      try {
        collect(JSON.parse(value), 'input', errors);
      } catch {
        // Not JSON: tRPC answers 400 itself.
      }
    } else if (UNSAFE.test(value)) errors.push({ field: name.slice(0, 100), message: unsafeMessage(value) });
  }
  refuse(errors.slice(0, MAX_LISTED_ERRORS));
}
