import { WrittenKeys } from './written-keys';

describe('WrittenKeys (the keys a rebuild wrote, as a Bloom filter)', () => {
  it('never says "not written" of a key it was given, per table', () => {
    const keys = new WrittenKeys(16);
    for (let i = 0; i < 5_000; i++) keys.add('runs', `run-${i}`);
    for (let i = 0; i < 5_000; i++) expect(keys.mightHave('runs', `run-${i}`)).toBe(true);
  });

  it('says "not written" of most keys it was not given, and tells tables apart', () => {
    const keys = new WrittenKeys(20);
    for (let i = 0; i < 50_000; i++) keys.add('steps', `step-${i}`);
    let falsePositives = 0;
    for (let i = 0; i < 50_000; i++) if (keys.mightHave('steps', `other-${i}`)) falsePositives += 1;
    expect(falsePositives / 50_000).toBeLessThan(0.02);
    let otherTable = 0;
    for (let i = 0; i < 50_000; i++) if (keys.mightHave('runs', `step-${i}`)) otherTable += 1;
    expect(otherTable / 50_000).toBeLessThan(0.02);
    expect(new WrittenKeys().mightHave('runs', 'anything')).toBe(false);
  });
});
