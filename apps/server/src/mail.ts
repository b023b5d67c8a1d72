import nodemailer from 'nodemailer';
import type { EmailMessage, Logger, MailTransport } from '@aqs/core';

export function smtpTransport(smtpUrl: string, from: string): MailTransport {
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
