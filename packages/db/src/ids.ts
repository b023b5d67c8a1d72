import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** `length` random characters of a 32-letter lower-case alphabet (5 bits each). */
export function randomChars(length: number): string {
  let out = '';
  for (const byte of randomBytes(length)) out += ALPHABET[byte & 31];
  return out;
}

/** Opaque id: a short type prefix and 16 random characters (80 bits), e.g. `usr_3k9x...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomChars(16)}`;
}
