import { checkedCall } from './checked-call';

describe('checkedCall', () => {
  it('returns a refusal of the check as a rejected promise, without calling', async () => {
    const call = jest.fn(() => Promise.resolve('called'));
    let answer: Promise<string> | undefined;
    expect(() => {
      answer = checkedCall(() => {
        throw new Error('streamName: must not be empty');
      }, call);
    }).not.toThrow();
    await expect(answer).rejects.toThrow('streamName: must not be empty');
    expect(call).not.toHaveBeenCalled();
  });

  it('calls with what the check gave', async () => {
    await expect(checkedCall(() => 41, (checked) => Promise.resolve(checked + 1))).resolves.toBe(42);
  });
});
