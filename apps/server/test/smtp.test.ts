import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { eq } from 'drizzle-orm';
import { outboxEmails } from '@aqs/db';
import {
  Browser,
  PASSWORD,
  startTestServer,
  tokenFromEmail,
  uniqueEmail,
  type TestServer,
} from '../src/testing.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
let smtp: SMTPServer;
let port = 0;
let server: TestServer;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  port = (smtp.server.address() as { port: number }).port;
  server = await startTestServer({
    env: {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'AQS <no-reply@aqs.test>',
      APP_URL: 'http://app.aqs.test',
    },
  });
});

afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

async function waitFor<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function bodyOf(raw: string): string {
  // nodemailer may use quoted-printable; undo soft line breaks and =XX escapes.
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('email over SMTP', () => {
  it('delivers the confirmation email to a real SMTP receiver, and its link verifies the address', async () => {
    const email = uniqueEmail('smtp');
    const browser = new Browser(server.url, 'http://app.aqs.test');
    expect((await browser.post('/auth/email/register', { email, password: PASSWORD })).status).toBe(202);
    const message = await waitFor(() => received.find((m) => m.to.includes(email)), 'the confirmation email');
    expect(message.from).toBe('no-reply@aqs.test');
    const body = bodyOf(message.raw);
    expect(body).toContain('Subject: Confirm your email address');
    expect(body).toContain('http://app.aqs.test/verify-email?token=');
    const token = tokenFromEmail(body);

    // With SMTP the outbox keeps a record but not the link (tokens are otherwise stored only hashed).
    const rows = await server.store.db.select().from(outboxEmails).where(eq(outboxEmails.toAddress, email));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.delivery).toBe('smtp');
    expect(rows[0]!.textBody).not.toContain(token);
    expect(server.logs()).not.toContain(token);

    await browser.post('/auth/email/login', { email, password: PASSWORD });
    expect((await browser.post('/auth/email/verify', { token })).status).toBe(200);
    expect((await browser.get('/auth/me')).json.email_verified).toBe(true);
  });

  it('delivers the password-reset email', async () => {
    const email = uniqueEmail('smtp-reset');
    await new Browser(server.url).post('/auth/email/register', { email, password: PASSWORD });
    await new Browser(server.url).post('/auth/email/forgot-password', { email });
    const message = await waitFor(
      () => received.find((m) => m.to.includes(email) && m.raw.includes('Reset your password')),
      'the reset email',
    );
    expect(bodyOf(message.raw)).toContain('http://app.aqs.test/reset-password?token=');
  });
});
