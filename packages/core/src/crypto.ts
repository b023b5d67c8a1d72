import { createHash, randomBytes } from 'node:crypto';

/** A URL-safe random token of `bytes` bytes (32 bytes = 256 bits by default). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
