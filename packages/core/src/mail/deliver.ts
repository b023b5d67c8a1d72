import { eq } from 'drizzle-orm';
import { newId, outboxEmails, type Database } from '@aqs/db';
import type { EmailMessage, Logger, MailTransport } from '../ports.ts';

/**
 * Records an email in the outbox and hands it to the transport. Without SMTP the body (with its
 * links) is kept in the outbox and logged, so a local user can still verify and reset; with SMTP the
 * body is not kept, because the links carry single-use tokens that are otherwise stored only hashed.
 * SMTP delivery runs in the background so answers take the same time whether or not an email is sent.
 */
export async function deliverEmail(
  deps: { db: Database; mail: MailTransport; logger: Logger },
  message: EmailMessage,
): Promise<void> {
  const id = newId('eml');
  const viaLog = deps.mail.kind === 'log';
  await deps.db.insert(outboxEmails).values({
    id,
    toAddress: message.to,
    subject: message.subject,
    textBody: viaLog ? message.text : '(sent by SMTP; the body is not kept)',
    delivery: deps.mail.kind,
    sentAt: viaLog ? new Date() : null,
  });
  if (viaLog) {
    await deps.mail.send(message);
    return;
  }
  void deps.mail
    .send(message)
    .then(() => deps.db.update(outboxEmails).set({ sentAt: new Date() }).where(eq(outboxEmails.id, id)))
    .catch(async (error: unknown) => {
      deps.logger.error({ err: error, emailId: id }, 'email delivery failed');
      await deps.db
        .update(outboxEmails)
        .set({ error: error instanceof Error ? error.message : String(error) })
        .where(eq(outboxEmails.id, id))
        .catch(() => undefined);
    });
}
