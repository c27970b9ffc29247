/** A JSON primitive. */
export type JsonPrimitive = string | number | boolean | null;

/** Any value that survives `JSON.stringify` / `JSON.parse` unchanged. */
export type JsonValue = JsonPrimitive | JsonObject | readonly JsonValue[];

/** A JSON object. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}
