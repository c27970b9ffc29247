import { InvalidOptionError } from './invalid-option.error';

/**
 * A consumer group exists in the store with settings other than the ones the
 * process was configured with. Nothing was changed: either configure the
 * process as the group is, or delete the group so that it is created again.
 */
export class ConsumerGroupMismatchError extends InvalidOptionError {
  constructor(
    /** The group's name. */
    readonly groupName: string,
    /** The setting that differs, e.g. `messageTimeoutMs`. */
    readonly setting: string,
    /** What the process was configured with. */
    readonly expected: string,
    /** What the group in the store has. */
    readonly found: string,
  ) {
    super(
      `consumerGroup.${setting}`,
      `the consumer group "${groupName}" exists with ${setting} ${found}, but this process is configured with ${expected}: configure ${setting} ${found} here, or delete the group (it is created again at the next start)`,
    );
  }
}
