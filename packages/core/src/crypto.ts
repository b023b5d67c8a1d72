import { hash, randomBytes } from 'node:crypto';

/** A URL-safe random token of `bytes` bytes (32 bytes = 256 bits by default). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** One-shot (`crypto.hash`): about five times cheaper than a Hash object, and every request hashes its credential. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
