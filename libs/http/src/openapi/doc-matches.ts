/** Whether `A` and `B` are the same type: each assignable to the other (`readonly` aside). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * `true` when the documentation class `Doc` has exactly the fields of the
 * type `T` it documents, each of the same type; otherwise an object naming
 * the fields that differ. A doc file states
 * `const _matches: DocMatches<RunStatusRowDoc, RunStatusRow> = true;` so that
 * the compiler refuses a field missing from the doc, a field the type no
 * longer has, or a field whose type changed (a new `| null`, an enum value).
 * The keys are compared too: mutual assignability alone lets an optional
 * field on either side go unnoticed.
 */
export type DocMatches<Doc, T> =
  [Same<Doc, T>, Same<keyof Doc, keyof T>] extends [true, true]
    ? true
    : {
        readonly missingFromDoc: Exclude<keyof T, keyof Doc>;
        readonly notInType: Exclude<keyof Doc, keyof T>;
        readonly differingTypes: { [K in keyof T & keyof Doc]: Same<T[K], Doc[K]> extends true ? never : K }[keyof T & keyof Doc];
      };
