export interface CookieSettings {
  name: string;
  secure: boolean;
}

/** `__Host-` prefixed and Secure when the app is served over HTTPS; plain name for local http. */
export function sessionCookieSettings(appUrl: string): CookieSettings {
  const secure = appUrl.startsWith('https://');
  return { name: secure ? '__Host-aqs_session' : 'aqs_session', secure };
}

export function serializeSessionCookie(
  settings: CookieSettings,
  token: string,
  expiresAt: Date,
  now = new Date(),
): string {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  const parts = [`${settings.name}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`];
  if (settings.secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearSessionCookie(settings: CookieSettings): string {
  const parts = [`${settings.name}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0'];
  if (settings.secure) parts.push('Secure');
  return parts.join('; ');
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
