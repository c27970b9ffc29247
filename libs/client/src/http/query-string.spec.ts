import { pathWith, queryString } from './query-string';

describe('queryString', () => {
  it('is empty when nothing is set', () => {
    expect(queryString({})).toBe('');
    expect(queryString({ status: undefined, limit: undefined })).toBe('');
  });

  it('leaves out undefined values, keeps the order, and encodes names and values', () => {
    expect(queryString({ status: 'COMPLETED', agent: undefined, limit: 5, cursor: 'a+b/c=d&e' })).toBe('?status=COMPLETED&limit=5&cursor=a%2Bb%2Fc%3Dd%26e');
    expect(queryString({ agent: 'caf\u00e9 clerk' })).toBe('?agent=caf%C3%A9%20clerk');
  });

  it('sends a Date as ms since the epoch, and ISO text and numbers as given', () => {
    expect(queryString({ since: new Date('2026-12-01T00:00:00.000Z'), until: '2026-12-02T00:00:00Z', from: 0 })).toBe('?since=1796083200000&until=2026-12-02T00%3A00%3A00Z&from=0');
    expect(queryString({ replayed: false })).toBe('?replayed=false');
  });

  it('refuses an invalid Date and a number that is not finite, naming the parameter', () => {
    expect(() => queryString({ since: new Date('nope') })).toThrow('The query parameter since is an invalid Date');
    expect(() => queryString({ limit: Number.NaN })).toThrow('The query parameter limit must be a finite number (got NaN)');
  });
});

describe('pathWith', () => {
  it('fills and encodes a path parameter', () => {
    expect(pathWith('/runs/{runId}/steps', { runId: 'a/b c' })).toBe('/runs/a%2Fb%20c/steps');
    expect(() => pathWith('/runs/{runId}', {})).toThrow('No value for {runId} in /runs/{runId}');
  });
});
