import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { DomainError } from './errors.ts';

/**
 * Authenticated encryption of stored credentials: AES-256-GCM under a key derived (HKDF-SHA256) from
 * SECRET_KEY. The associated data binds each ciphertext to its connection and field, so a value copied
 * to another row or field fails to decrypt. The envelope names its key version for later rotation.
 */
export interface SecretBox {
  seal(plaintext: string, associatedData: string): string;
  open(envelope: string, associatedData: string): string;
}

const VERSION = 'v1';

export function createSecretBox(secretKey: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', secretKey, 'aqs-secret-box', 'connection credentials v1', 32));
  return {
    seal(plaintext, associatedData) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        ciphertext.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join(':');
    },
    open(envelope, associatedData) {
      const [version, iv, ciphertext, tag] = envelope.split(':');
      if (version !== VERSION || !iv || ciphertext === undefined || !tag) {
        throw new DomainError(
          'unavailable',
          'A stored credential has an unknown format. Re-enter it by editing the connection.',
        );
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new DomainError(
          'unavailable',
          'A stored credential could not be decrypted (was SECRET_KEY changed?). Re-enter it by editing the connection.',
        );
      }
    },
  };
}
