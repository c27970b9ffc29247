import { parseArguments } from '../run';
import { barChart } from './chart';
import { formatNumber } from './report';
import { median, quantile, ratioSamples, summarise } from './stats';

describe('bench support', () => {
  it('quantiles by nearest rank, medians, spreads and round-by-round ratios', () => {
    expect(quantile([5, 1, 4, 2, 3], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.99)).toBe(10);
    expect(quantile([], 0.5)).toBeNaN();
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(summarise([90, 100, 110])).toEqual({ median: 100, min: 90, max: 110, spread: 0.2, n: 3 });
    expect(ratioSamples([10, 20], [20, 40])).toEqual([0.5, 0.5]);
    expect(() => ratioSamples([1], [1, 2])).toThrow('the rounds differ');
  });

  it('parses the command line and names what it refuses', () => {
    expect(parseArguments(['--only', 'steps,store', '--rounds', '5', '--quick'], ['steps', 'store', 'http'])).toEqual(expect.objectContaining({ only: ['steps', 'store'], rounds: 5, quick: true }));
    expect(() => parseArguments(['--only', 'stpes'], ['steps'])).toThrow('--only: unknown scenario(s) stpes; known: steps');
    expect(() => parseArguments(['--rounds', '0'], ['steps'])).toThrow('--rounds must be an integer from 1 to 50');
    expect(() => parseArguments(['--rounds'], ['steps'])).toThrow('--rounds needs a value');
    expect(() => parseArguments(['--fast'], ['steps'])).toThrow('unknown argument --fast');
  });

  it('formats numbers for the table and draws escaped bars with their target', () => {
    expect(formatNumber(12345.6)).toBe('12,346');
    expect(formatNumber(0.12345)).toBe('0.123');
    const svg = barChart('a <chart>', [{ label: 'x & y', median: 0.5, min: 0.4, max: 0.6, target: 0.4 }]);
    expect(svg).toContain('a &lt;chart&gt;');
    expect(svg).toContain('x &amp; y');
    expect(svg).toContain('stroke-dasharray');
    expect(svg).not.toContain('<script');
  });
});
