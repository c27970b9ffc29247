/** Whether `A` and `B` are the same type: each assignable to the other (`readonly` aside). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * `true` when the contract's type `Contract` (`@agent-ledger/client`) has
 * exactly the fields of the service's own type `Service`, each of the same
 * type; otherwise an object naming the fields that differ. A check states
 * `true satisfies SameFields<Client.RunStatusRow, RunStatusRow>`, so that the
 * compiler refuses a field missing from the contract, a field the service's
 * type no longer has, or a field whose type changed (a new `| null`, an enum
 * value). The keys are compared too: mutual assignability alone lets an
 * optional field on either side go unnoticed.
 */
export type SameFields<Contract, Service> =
  [Same<Contract, Service>, Same<keyof Contract, keyof Service>] extends [true, true]
    ? true
    : {
        readonly missingFromContract: Exclude<keyof Service, keyof Contract>;
        readonly notInService: Exclude<keyof Contract, keyof Service>;
        readonly differingTypes: { [K in keyof Service & keyof Contract]: Same<Service[K], Contract[K]> extends true ? never : K }[keyof Service & keyof Contract];
      };
