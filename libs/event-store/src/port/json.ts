/** A JSON primitive. Numbers must be finite. */
export type JsonPrimitive = string | number | boolean | null;

/** Any JSON value. */
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A JSON object. Properties whose value is `undefined` are omitted when stored, as `JSON.stringify` does. */
export type JsonObject = { readonly [key: string]: JsonValue | undefined };
