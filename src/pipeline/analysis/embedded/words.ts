// Word lists several rules of the embedded analyzer share. Each entry is a regular-expression
// fragment ("neighbou?r", "fianc[eé]"); a rule joins the list it needs with anyOf, and adds the words
// only it reads, so what the rules have in common is written once.

/** Family and partner words a man is named by ("my husband", "our son"). */
export const KIN_MALE: readonly string[] = ['husband', 'son', 'dad', 'father', 'brother', 'boyfriend'];
/** Family and partner words a woman is named by ("my wife", "our daughter"). */
export const KIN_FEMALE: readonly string[] = ['wife', 'daughter', 'mum', 'mom', 'mother', 'sister', 'girlfriend'];
/** Family and partner words either is named by. */
export const KIN_EITHER: readonly string[] = ['partner'];
/** The close family and partner words every rule reading "my husband" / "our daughter" knows. */
export const KIN: readonly string[] = [...KIN_MALE, ...KIN_FEMALE, ...KIN_EITHER];

/** The fragments as one alternation, for a `(?:...)` group. */
export const anyOf = (...lists: ReadonlyArray<readonly string[]>): string => lists.flat().join('|');
