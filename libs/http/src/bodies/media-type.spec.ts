import { isJsonMediaType, mediaTypeOf } from './media-type';

describe('the media type of a request body', () => {
  it.each<[string | undefined, string | null]>([
    [undefined, null],
    ['application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['Application/JSON;charset=UTF-8', 'application/json'],
    ['  application/json  ; x=y', 'application/json'],
    ['text/plain;charset=UTF-8', 'text/plain'],
    ['multipart/form-data; boundary=x', 'multipart/form-data'],
    ['x/y;;;=', 'x/y'],
    ['', ''],
    [`text/${'a'.repeat(500)}`, `text/${'a'.repeat(95)}`],
  ])('of Content-Type %j is %j', (header, mediaType) => {
    expect(mediaTypeOf(header)).toBe(mediaType);
  });

  it('reads application/json only: not its +json relatives, nor text/json, nor no type', () => {
    expect(isJsonMediaType('application/json')).toBe(true);
    for (const other of ['application/merge-patch+json', 'application/vnd.api+json', 'application/problem+json', 'text/json', 'application/jsonx', '', null]) {
      expect({ other, json: isJsonMediaType(other) }).toEqual({ other, json: false });
    }
  });
});
