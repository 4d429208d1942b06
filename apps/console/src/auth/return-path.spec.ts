import { LANDING_PATH, parseLoginSearch, returnPath } from './return-path';

describe('the screen the console opens after logging in', () => {
  it('goes back to the screen first asked for, with its query', () => {
    expect(returnPath('/runs')).toBe('/runs');
    expect(returnPath('/runs?status=failed&artifact=x')).toBe('/runs?status=failed&artifact=x');
    expect(returnPath('/webhooks?tab=dead')).toBe('/webhooks?tab=dead');
  });

  it('lands on the Overview without one, or for the root and the login screen', () => {
    for (const redirect of [undefined, null, 3, '', '/', '/login', '/login?redirect=%2Fruns', '/?x=1'])
      expect(returnPath(redirect)).toBe(LANDING_PATH);
    expect(LANDING_PATH).toBe('/overview');
  });

  it('never leaves the console: another origin, a scheme, a backslash or a control character falls back', () => {
    for (const redirect of [
      '//evil.example/runs',
      'https://evil.example',
      'javascript:alert(1)',
      '/\\evil.example',
      'runs',
      '/runs\n',
      'x'.repeat(3000),
    ])
      expect(returnPath(redirect)).toBe(LANDING_PATH);
  });

  it('keeps only a redirect worth following in the login URL', () => {
    expect(parseLoginSearch({ redirect: '/runs?status=failed' })).toEqual({ redirect: '/runs?status=failed' });
    expect(parseLoginSearch({ redirect: '/overview' })).toEqual({ redirect: '/overview' });
    expect(parseLoginSearch({ redirect: '//evil.example' })).toEqual({});
    expect(parseLoginSearch({})).toEqual({});
  });
});
