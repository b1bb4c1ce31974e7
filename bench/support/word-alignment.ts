// Which recognised words are right: the recognised words of a call aligned to its truth text
// (both after the corpus scorer's normalisation) by edit distance. A recognised word is right when
// every token it normalises to is matched. Used by the fitting scripts (bench/fit-*.ts).

/** For each recognised word, whether it was recognised right. */
export function rightWords(recognised: string[], truthText: string, normalizeText: (s: string) => string[]): boolean[] {
  const hyp: Array<{ token: string; word: number }> = [];
  recognised.forEach((w, i) => {
    for (const token of normalizeText(w)) hyp.push({ token, word: i });
  });
  const ref = normalizeText(truthText);
  const n = hyp.length;
  const m = ref.length;
  // Levenshtein table, then a trace back marking matched hypothesis tokens.
  const d: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = 0; i <= n; i++) d[i][0] = i;
  for (let j = 0; j <= m; j++) d[0][j] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const same = hyp[i - 1].token === ref[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + same);
    }
  }
  const matched = new Array<boolean>(n).fill(false);
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    // Ties go to a match first, then to an insertion or a deletion, a substitution last, so that a
    // right word is not paired off against its neighbour's reference word.
    const same = hyp[i - 1].token === ref[j - 1];
    if (same && d[i][j] === d[i - 1][j - 1]) {
      matched[i - 1] = true;
      i--;
      j--;
    } else if (d[i][j] === d[i - 1][j] + 1) i--;
    else if (d[i][j] === d[i][j - 1] + 1) j--;
    else {
      i--;
      j--;
    }
  }
  const right = new Array<boolean>(recognised.length).fill(true);
  const hasToken = new Array<boolean>(recognised.length).fill(false);
  hyp.forEach((h, k) => {
    hasToken[h.word] = true;
    if (!matched[k]) right[h.word] = false;
  });
  // A word that normalises to nothing (a filler) is neither right nor wrong: left out by callers.
  return right.map((r, k) => r && hasToken[k]);
}
