import type { EmailMessage } from '../ports.ts';

function link(appUrl: string, path: string, token: string): string {
  const url = new URL(path, appUrl.endsWith('/') ? appUrl : `${appUrl}/`);
  url.searchParams.set('token', token);
  return url.toString();
}

export function verifyEmailMessage(appUrl: string, to: string, token: string, hours: number): EmailMessage {
  return {
    to,
    subject: 'Confirm your email address',
    text: [
      'Welcome to the Analytics Query Service.',
      '',
      'Confirm your email address by opening this link:',
      link(appUrl, 'verify-email', token),
      '',
      `The link works once and expires in ${hours} hours. If you did not create an account, ignore this email.`,
    ].join('\n'),
  };
}

export function accountExistsMessage(appUrl: string, to: string): EmailMessage {
  return {
    to,
    subject: 'Someone tried to register with your email address',
    text: [
      'Someone (perhaps you) tried to create an account with this email address, but you already have one.',
      '',
      `Sign in at ${new URL('login', appUrl.endsWith('/') ? appUrl : `${appUrl}/`).toString()}`,
      'If you forgot your password, use "Forgot password" on the sign-in page.',
    ].join('\n'),
  };
}

export function resetPasswordMessage(
  appUrl: string,
  to: string,
  token: string,
  minutes: number,
): EmailMessage {
  return {
    to,
    subject: 'Reset your password',
    text: [
      'Someone asked to reset the password of your Analytics Query Service account.',
      '',
      'Choose a new password by opening this link:',
      link(appUrl, 'reset-password', token),
      '',
      `The link works once and expires in ${minutes} minutes. Resetting signs you out everywhere.`,
      'If you did not ask for this, ignore this email: your password stays as it is.',
    ].join('\n'),
  };
}

export function workspaceInviteMessage(
  appUrl: string,
  to: string,
  token: string,
  invite: { workspaceName: string; invitedBy: string; days: number },
): EmailMessage {
  return {
    to,
    subject: `You are invited to ${invite.workspaceName}`,
    text: [
      `${invite.invitedBy} invited you to join the workspace "${invite.workspaceName}" on the Analytics Query Service.`,
      '',
      'Open this link to accept (sign in, or create an account with this email address, first):',
      link(appUrl, 'invite', token),
      '',
      `The link works once and expires in ${invite.days} days. If you did not expect it, ignore this email.`,
    ].join('\n'),
  };
}
