/**
 * The invite link someone opened before they could accept it (signed out, or not confirmed yet),
 * kept in this browser so that registering and confirming the email (whose link may open in another
 * tab) lead back to it. The link holds the invite's token: it is kept a day at most, and forgotten on
 * joining, on a refusal that will not change (unknown, used, revoked, expired), and at sign-out.
 */
const KEY = 'aqs.pending-invite';
const MAX_AGE_MS = 24 * 3600_000;

export function invitePath(token: string): string {
  return `/invite?token=${encodeURIComponent(token)}`;
}

export function rememberInvite(path: string): void {
  try {
    window.localStorage.setItem(KEY, JSON.stringify({ path, at: Date.now() }));
  } catch {
    // Storage may be off (private mode): the `next` parameter still carries the invite through sign-in.
  }
}

export function pendingInvite(): string | null {
  try {
    const raw = window.localStorage.getItem(KEY);
    if (!raw) return null;
    const { path, at } = JSON.parse(raw) as { path?: unknown; at?: unknown };
    if (typeof path !== 'string' || !path.startsWith('/invite?') || typeof at !== 'number') return null;
    if (Date.now() - at > MAX_AGE_MS) {
      forgetInvite();
      return null;
    }
    return path;
  } catch {
    return null;
  }
}

export function forgetInvite(): void {
  try {
    window.localStorage.removeItem(KEY);
  } catch {
    // nothing kept
  }
}
