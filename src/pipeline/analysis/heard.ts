// How an offline recogniser writes the words of a dictated e-mail address ("linda dot green at
// gmail dot com" -> "linda got green and nail dot com"). Shared by the embedded analyzer, which
// rebuilds an address from them only around the call's own names (spoken.ts), and by the grounding
// check applied to every analyzer, which accepts an address only if the heard words spell it out in
// order (grounding.ts). Only words a recogniser was seen to write for these are listed: a common word
// here ("and", "not") is read as "@"/"." only inside a whole address, never on its own.

/** Heard for "dot". */
export const HEARD_DOT = new Set(['dot', 'got', 'dog', 'not', 'dart', 'dut']);
/** Heard for "at". */
export const HEARD_AT = new Set(['at', 'and', 'add', 'had', 'it', 'an']);
/** Heard for the top-level domain after "dot". */
export const HEARD_TLD: Record<string, string> = { com: 'com', calm: 'com', come: 'com', comb: 'com', con: 'com', net: 'net', org: 'org' };
/** Heard for the big webmail domains, one or two words each. */
export const HEARD_DOMAIN: Array<[string[], string]> = [
  [['gmail'], 'gmail'], [['g', 'mail'], 'gmail'], [['g', 'male'], 'gmail'], [['gee', 'mail'], 'gmail'], [['nail'], 'gmail'], [['male'], 'gmail'], [['female'], 'gmail'],
  [['hotmail'], 'hotmail'], [['hot', 'mail'], 'hotmail'], [['hot', 'male'], 'hotmail'],
  [['yahoo'], 'yahoo'], [['ya', 'who'], 'yahoo'], [['yeah', 'who'], 'yahoo'],
  [['outlook'], 'outlook'], [['out', 'look'], 'outlook'], [['out', 'luck'], 'outlook'],
  [['icloud'], 'icloud'], [['i', 'cloud'], 'icloud'],
  [['fastmail'], 'fastmail'], [['fast', 'mail'], 'fastmail'], [['fast', 'male'], 'fastmail'],
  [['protonmail'], 'protonmail'], [['proton', 'mail'], 'protonmail'], [['proton', 'male'], 'protonmail'],
];
