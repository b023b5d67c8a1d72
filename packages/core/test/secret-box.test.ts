import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../src/secret-box.ts';
import { DomainError } from '../src/errors.ts';

const box = createSecretBox('a-test-master-key-of-at-least-32-characters');

describe('secret box (AES-256-GCM with associated data)', () => {
  it('round-trips, and never stores the plaintext', () => {
    const sealed = box.seal('s3cr3t-value', 'connection:con_a:password');
    expect(sealed).toMatch(/^v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(sealed).not.toContain('s3cr3t');
    expect(box.open(sealed, 'connection:con_a:password')).toBe('s3cr3t-value');
  });

  it('uses a fresh nonce each time', () => {
    expect(box.seal('x', 'a')).not.toBe(box.seal('x', 'a'));
  });

  it('refuses a value copied to another connection or field', () => {
    const sealed = box.seal('s3cr3t-value', 'connection:con_a:password');
    expect(() => box.open(sealed, 'connection:con_b:password')).toThrow(DomainError);
    expect(() => box.open(sealed, 'connection:con_a:api_key_secret')).toThrow(/could not be decrypted/);
  });

  it('refuses a tampered ciphertext and another master key', () => {
    const sealed = box.seal('s3cr3t-value', 'aad');
    const parts = sealed.split(':');
    const flipped = Buffer.from(parts[2]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() =>
      box.open([parts[0], parts[1], flipped.toString('base64url'), parts[3]].join(':'), 'aad'),
    ).toThrow(DomainError);
    expect(() => createSecretBox('another-master-key-of-at-least-32-chars!!').open(sealed, 'aad')).toThrow(
      DomainError,
    );
  });
});
