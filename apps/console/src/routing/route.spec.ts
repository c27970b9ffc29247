import { hashOf, routeOf } from './route';

describe('routeOf / hashOf', () => {
  it('reads each page and round-trips', () => {
    for (const hash of ['#/runs', '#/audit', '#/approvals', '#/projections', '#/sign-in', '#/runs/a%2Fb%20c']) {
      expect(hashOf(routeOf(hash))).toBe(hash);
    }
    expect(routeOf('#/runs/a%2Fb%20c')).toEqual({ page: 'run', runId: 'a/b c' });
  });

  it('falls back to the runs list', () => {
    expect(routeOf('')).toEqual({ page: 'runs' });
    expect(routeOf('#/nonsense/x')).toEqual({ page: 'runs' });
  });
});
