import { DomainError } from '@aqs/core';
import { decodeUtf8 } from './input-text.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a request body's bytes, refusing more than `limit` whatever Content-Length claims. */
export async function readBodyBytes(request: Request, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = () =>
    new DomainError(
      'payload_too_large',
      `The request body is larger than ${limit / 1024 / 1024} MiB; send less data.`,
    );
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw tooLarge();
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Reads a request body as text (valid UTF-8), refusing more than `limit` bytes. */
export async function readBodyText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  return decodeUtf8(await readBodyBytes(request, limit), 'request body');
}

/** A copy of the request with a buffered body (adapters can then read it once more). */
export function withBody(request: Request, body: string | undefined, contentType?: string): Request {
  const headers = new Headers(request.headers);
  if (contentType) headers.set('content-type', contentType);
  headers.delete('content-length');
  return new Request(request.url, {
    method: request.method,
    headers,
    body: body ?? null,
    signal: request.signal,
  });
}
