// Which words differ between the calibrated and the raised claim, so the view can point at the
// force shift. A word-level longest common subsequence; pieces are plain text (never HTML).

export interface DiffPiece {
  text: string;
  /** True for words that are not shared with the other claim. */
  changed: boolean;
}

/** Splits text into alternating words and whitespace runs, keeping every character. */
function tokens(text: string): string[] {
  return text.split(/(\s+)/).filter((t) => t !== "");
}

const isSpace = (t: string) => /^\s+$/.test(t);

/** Words compare without case and without surrounding punctuation ("The" = "the", "began." = "began"). */
function key(word: string): string {
  const bare = word.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
  return bare === "" ? word : bare;
}

/** For each word of `a`, whether it belongs to a longest common subsequence with `b`. */
function sharedWords(a: string[], b: string[]): boolean[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const shared = new Array<boolean>(n).fill(false);
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[i] === b[j]) {
      shared[i] = true;
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  return shared;
}

/** `text` cut into pieces, with the words missing from `other` marked `changed`. */
export function diffWords(text: string, other: string): DiffPiece[] {
  const all = tokens(text);
  const words = all.filter((t) => !isSpace(t)).map(key);
  const shared = sharedWords(words, tokens(other).filter((t) => !isSpace(t)).map(key));
  // Flag every token: words from the LCS; a space is changed only between two changed words.
  const flags: boolean[] = [];
  let w = 0;
  for (const t of all) flags.push(isSpace(t) ? false : !shared[w++]);
  for (let i = 1; i < all.length - 1; i++) {
    if (isSpace(all[i]) && flags[i - 1] && flags[i + 1]) flags[i] = true;
  }
  const pieces: DiffPiece[] = [];
  all.forEach((t, i) => {
    const last = pieces[pieces.length - 1];
    if (last && last.changed === flags[i]) last.text += t;
    else pieces.push({ text: t, changed: flags[i] });
  });
  return pieces;
}

/**
 * For a one- or two-line preview: drops the shared opening of a long claim, keeping `keep`
 * words before the first difference, so the difference is visible. Marks the cut with "… ".
 */
export function focusOnChange(pieces: DiffPiece[], keep = 4, minCut = 40): DiffPiece[] {
  const first = pieces.findIndex((p) => p.changed);
  if (first <= 0) return pieces;
  const lead = pieces[0].text;
  const words = lead.split(/(\s+)/);
  const start = Math.max(0, words.length - 2 * keep);
  const tail = words.slice(start).join("");
  if (lead.length - tail.length < minCut) return pieces;
  return [{ text: `… ${tail.trimStart()}`, changed: false }, ...pieces.slice(1)];
}
