import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';
import type { EmailMessage, Logger, MailTransport } from '@aqs/core';

/** An SMTP sender. nodemailer loads only when SMTP is configured. */
export function smtpTransport(smtpUrl: string, from: string): MailTransport {
  const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
  const transporter = nodemailer.createTransport(smtpUrl);
  return {
    kind: 'smtp',
    async send(message: EmailMessage) {
      await transporter.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}

/** Without SMTP, emails go to the log (and the outbox table), so local users can still follow their links. */
export function logTransport(logger: Logger): MailTransport {
  return {
    kind: 'log',
    async send(message: EmailMessage) {
      logger.info(
        { email: message },
        `email to ${message.to} (SMTP_URL is not set, so it was logged instead of sent)`,
      );
    },
  };
}
