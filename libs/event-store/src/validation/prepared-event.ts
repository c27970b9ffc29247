/**
 * An event checked and serialised once, before any adapter writes it. Adapters
 * store these strings as they are, so the size checked is the size stored.
 */
export interface PreparedEvent {
  /** The UUID, lower case. */
  readonly id: string;
  /** The event type. */
  readonly type: string;
  /** `JSON.stringify(data)`. */
  readonly dataJson: string;
  /** `JSON.stringify(metadata ?? {})`. */
  readonly metadataJson: string;
  /** UTF-8 bytes of type + data + metadata. */
  readonly size: number;
}
