import type { Request } from 'express';
import { httpRequestLabels, UNKNOWN_ROUTE } from './http-metrics';

const request = (fields: Partial<Request> & { route?: { path: string } }) =>
  ({ method: 'GET', baseUrl: '', ...fields }) as unknown as Request;

describe('the HTTP request labels', () => {
  it('uses the route template, never the URL', () => {
    expect(
      httpRequestLabels(request({ method: 'GET', url: '/v1/public/requests/req_1', route: { path: '/v1/public/requests/:id' } }), 200),
    ).toEqual({
      http_request_method: 'GET',
      http_route: '/v1/public/requests/:id',
      http_response_status_code: 200,
    });
  });

  it('gives every unrouted request one route value, the catch-all middleware route included', () => {
    expect(httpRequestLabels(request({ url: '/nope' }), 404).http_route).toBe(UNKNOWN_ROUTE);
    expect(httpRequestLabels(request({ url: '/nope', route: { path: '/{*path}' } }), 404).http_route).toBe(UNKNOWN_ROUTE);
  });

  it('keeps the standard methods and folds any other into _OTHER', () => {
    expect(httpRequestLabels(request({ method: 'DELETE' }), 204).http_request_method).toBe('DELETE');
    expect(httpRequestLabels(request({ method: 'PROPFIND' }), 404).http_request_method).toBe('_OTHER');
  });
});
