/** Names for downloaded answers, and the Content-Disposition header that carries them. */
import { storableText } from '../storable.ts';

export type DownloadExtension = 'csv' | 'png' | 'svg' | 'json';

const SLUG_MAX_LENGTH = 80;
const SLUG_FALLBACK = 'answer';
/** A letter or digit of any script, then letters, digits and combining marks (Devanagari vowel signs...). */
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** The longest start of `word` within `max` code points that does not split a grapheme. */
function cutWord(word: string, max: number): string {
  let cut = '';
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(word)) {
    if (codePointLength(cut) + codePointLength(segment) > max) break;
    cut += segment;
  }
  return cut;
}

/**
 * A readable file name for the answer to `question`: its words (NFKC, lower case) joined by `-`, at
 * most 80 code points cut between words (inside the first word only when it alone is longer), then
 * the extension. `answer.<ext>` when the question has no letter or digit.
 */
export function downloadFilename(question: string, extension: DownloadExtension): string {
  const words = question.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  let slug = '';
  for (const word of words) {
    const joined = slug ? `${slug}-${word}` : word;
    if (codePointLength(joined) > SLUG_MAX_LENGTH) {
      if (!slug) slug = cutWord(word, SLUG_MAX_LENGTH);
      break;
    }
    slug = joined;
  }
  return `${slug || SLUG_FALLBACK}.${extension}`;
}

/**
 * What the quoted `filename="..."` must not hold: anything but printable ASCII, `"`, `\`, `;`, and `%`
 * (some browsers percent-decode that parameter).
 */
const UNSAFE_IN_ASCII_FALLBACK = /[^\x20-\x7E]|["\\;%]/gu;
/** Outside RFC 5987's attr-char but left alone by encodeURIComponent. */
const RESERVED_IN_EXT_VALUE = /['()*]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;

function asciiFallback(filename: string): string {
  return filename.normalize('NFKD').replace(/\p{M}/gu, '').replace(UNSAFE_IN_ASCII_FALLBACK, '_');
}

function rfc5987Encode(text: string): string {
  return encodeURIComponent(text).replace(
    RESERVED_IN_EXT_VALUE,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * `attachment` with the file name twice: an ASCII `filename` for old clients (accents
 * transliterated, anything else `_`) and the exact UTF-8 name in `filename*` (RFC 6266, RFC 5987).
 * Control characters become `_` in both, and the header value is printable ASCII whatever the name.
 */
export function contentDisposition(filename: string): string {
  // Lone surrogates cannot be percent-encoded as UTF-8: storableText makes them U+FFFD.
  const name = storableText(filename.replace(CONTROL, '_'));
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${rfc5987Encode(name)}`;
}
