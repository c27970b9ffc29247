import { SseParser } from './sse-parser';

describe('SseParser', () => {
  it('parses frames split anywhere, with comments, ids and events', () => {
    const text = 'retry: 1000\n: greeting\n\nid: 1:1\nevent: RunRequested\ndata: {"a":1}\n\n: heartbeat\n\nid: 2:2\ndata: {"b":2}\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const messages = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(messages).toEqual([
        { id: '1:1', event: 'RunRequested', data: '{"a":1}' },
        // The id carries over (the last event id), the event type does not.
        { id: '2:2', event: undefined, data: '{"b":2}' },
      ]);
    }
  });

  it('joins several data lines, takes \\r\\n and \\r line ends and values without a space', () => {
    const parser = new SseParser();
    expect(parser.push('data:one\r\ndata: two\r\rdata: x\r')).toEqual([{ id: undefined, event: undefined, data: 'one\ntwo' }]);
    expect(parser.push('\n\n')).toEqual([{ id: undefined, event: undefined, data: 'x' }]);
  });

  it('gives nothing for an unfinished message', () => {
    expect(new SseParser().push('id: 1\ndata: {"partial":')).toEqual([]);
  });
});
