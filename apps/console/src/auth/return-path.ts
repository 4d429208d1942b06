/** Where the console lands after logging in when no screen was asked for. */
export const LANDING_PATH = '/overview';

/**
 * The screen to open after logging in: the one first asked for (the login route's `redirect`
 * param, a path inside the console with its query), or the landing screen. Only a plain path of
 * this console is followed: another origin (`//host`, `https:`), a backslash trick or the login
 * screen itself falls back to the landing screen.
 */
export function returnPath(redirect: unknown): string {
  if (typeof redirect !== 'string' || redirect.length > 2048) return LANDING_PATH;
  if (
    !redirect.startsWith('/') ||
    redirect.startsWith('//') ||
    redirect.includes('\\') ||
    [...redirect].some((char) => char.charCodeAt(0) < 0x20)
  )
    return LANDING_PATH;
  const path = redirect.split(/[?#]/)[0];
  if (path === '/' || path === '/login' || path.startsWith('/login/')) return LANDING_PATH;
  return redirect;
}

/** The login route's validateSearch: the screen asked for, when it is one to go back to. */
export function parseLoginSearch(search: Record<string, unknown>): { redirect?: string } {
  const path = returnPath(search.redirect);
  return path === LANDING_PATH && search.redirect !== LANDING_PATH ? {} : { redirect: path };
}
