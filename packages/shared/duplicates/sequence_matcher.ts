/**
 * A port of Python's `difflib.SequenceMatcher` (isjunk = None, autojunk = True), kept
 * bit-for-bit faithful so name similarity equals what the original Python backend computed.
 *
 * Sequences are arrays of Unicode code points, not UTF-16 code units: Python iterates a `str`
 * by code point, so an emoji is one element there and must be one element here, otherwise
 * lengths, the 200-item autojunk cut-off and the popularity count would all drift.
 */

/** One matching block: a[a .. a+size) == b[b .. b+size), as difflib's `Match` named tuple. */
export interface MatchBlock {
  readonly a: number;
  readonly b: number;
  readonly size: number;
}

/** Code points of a string, the element type Python's difflib sees for a `str`. */
export function toCodePoints(s: string): Int32Array {
  const out = new Int32Array(s.length);
  let n = 0;
  for (const ch of s) out[n++] = ch.codePointAt(0)!;
  return out.slice(0, n);
}

/** difflib's `_calculate_ratio`: two empty sequences are identical, hence 1.0. */
export function calculateRatio(matches: number, length: number): number {
  return length ? (2.0 * matches) / length : 1.0;
}

/** Code points below this are looked up in a flat table; the rest, rare in names, in a Map. */
const TABLE_SIZE = 256;

// Per-comparison scratch shared by all instances: matching is synchronous and never
// re-entered, and sharing keeps a batch of millions of comparisons allocation-free.
let aFrom = new Int32Array(64);
let aTo = new Int32Array(64);
let stack = new Int32Array(256);
// find_longest_match's two rows of match lengths (by parity of the row number), each entry
// valid only if its stamp equals the row it belongs to. Row numbers grow across all calls
// (a float counts exactly to 2^53), so nothing is ever cleared between calls.
let lens = new Int32Array(512);
let stamps = new Float64Array(512).fill(-2);
let stampCounter = 0;

/**
 * The second sequence with everything difflib derives from it. Building it is the expensive
 * part of a comparison, so batch callers build it once per product and reuse it (as difflib's
 * docs advise with `set_seq2`).
 */
export class PreparedSequence {
  readonly seq: Int32Array;
  /** Elements autojunk removed from b2j (difflib's `bpopular`). */
  readonly popular: ReadonlySet<number>;
  /** `seq` sorted ascending: quick_ratio's multiset intersection becomes a linear merge. */
  readonly sorted: Int32Array;

  // b2j in compressed form: the ascending positions of each non-popular element are one
  // contiguous run of `positions`. Runs of code points < TABLE_SIZE start at tableStart[c] and
  // end at tableStart[c + 1]; other code points map to a run index into otherBounds.
  private readonly positions: Int32Array;
  private readonly tableStart: Int32Array;
  private readonly otherRun: Map<number, number>;
  private readonly otherBounds: Int32Array;

  // Scratch rows for find_longest_match. Index j+1 holds the length of the match ending at
  // b[j]; a touched-list clears a row in time proportional to what was written, not len(b).
  // find_longest_match's answer, kept in fields so the hot path returns no objects.
  private besti = 0;
  private bestj = 0;
  private bestsize = 0;

  constructor(seq: Int32Array | string) {
    const b = this.seq = typeof seq === "string" ? toCodePoints(seq) : seq;
    const counts = new Map<number, number>();
    for (let j = 0; j < b.length; j++) counts.set(b[j], (counts.get(b[j]) ?? 0) + 1);
    // difflib's autojunk: only for len(b) >= 200, an element is popular when it occurs more
    // than len(b) // 100 + 1 times. Popular elements cannot seed a match, only extend one.
    const popular = new Set<number>();
    if (b.length >= 200) {
      const ntest = Math.floor(b.length / 100) + 1;
      for (const [elt, n] of counts) if (n > ntest) popular.add(elt);
    }
    this.popular = popular;

    const tableStart = new Int32Array(TABLE_SIZE + 1);
    const otherRun = new Map<number, number>();
    for (const [elt, n] of counts) {
      if (popular.has(elt)) continue;
      if (elt < TABLE_SIZE) tableStart[elt + 1] = n;
      else otherRun.set(elt, otherRun.size);
    }
    for (let c = 0; c < TABLE_SIZE; c++) tableStart[c + 1] += tableStart[c];
    const otherBounds = new Int32Array(2 * otherRun.size);
    let end = tableStart[TABLE_SIZE];
    for (const [elt, run] of otherRun) {
      otherBounds[2 * run] = end;
      otherBounds[2 * run + 1] = end += counts.get(elt)!;
    }
    const positions = new Int32Array(end);
    const cursor = tableStart.slice(0, TABLE_SIZE);
    const otherCursor = otherBounds.slice();
    for (let j = 0; j < b.length; j++) {
      const elt = b[j];
      if (elt < TABLE_SIZE) {
        if (!popular.has(elt)) positions[cursor[elt]++] = j;
      } else {
        const run = otherRun.get(elt);
        if (run !== undefined) positions[otherCursor[2 * run]++] = j;
      }
    }
    this.positions = positions;
    this.tableStart = tableStart;
    this.otherRun = otherRun;
    this.otherBounds = otherBounds;
    this.sorted = b.slice().sort();
  }

  /** Stores the run of b2j[elt] at aFrom[i], aTo[i]. */
  private locate(elt: number, i: number): void {
    if (elt >= 0 && elt < TABLE_SIZE) {
      aFrom[i] = this.tableStart[elt];
      aTo[i] = this.tableStart[elt + 1];
      return;
    }
    const run = this.otherRun.get(elt);
    aFrom[i] = run === undefined ? 0 : this.otherBounds[2 * run];
    aTo[i] = run === undefined ? 0 : this.otherBounds[2 * run + 1];
  }

  /** Looks up b2j for every element of a once per comparison instead of once per region. */
  private locateAll(a: Int32Array): void {
    if (aFrom.length < a.length) {
      aFrom = new Int32Array(2 * a.length);
      aTo = new Int32Array(2 * a.length);
    }
    for (let i = 0; i < a.length; i++) this.locate(a[i], i);
  }

  /**
   * difflib's find_longest_match over a[alo:ahi], b[blo:bhi], after locateAll(a). With
   * isjunk = None the junk set is empty, so difflib's final "suck up junk" loops never run
   * and are omitted; popular elements are not junk and are absorbed by the extension loops.
   */
  private longest(a: Int32Array, alo: number, ahi: number, blo: number, bhi: number): void {
    const b = this.seq, positions = this.positions;
    let besti = alo, bestj = blo, bestsize = 0;
    const width = b.length + 1;
    if (lens.length < 2 * width) {
      lens = new Int32Array(4 * width);
      stamps = new Float64Array(4 * width).fill(-2);
    }
    const from = aFrom, to = aTo, len = lens, stamp = stamps;
    // One row number per i plus an unused one in front, so the first row's "previous row"
    // can never match stamps left behind by an earlier call.
    let row = stampCounter + 1;
    stampCounter += ahi - alo + 1;
    for (let i = alo; i < ahi; i++, row++) {
      const cur = (row & 1) * width, prev = width - cur;
      const runEnd = to[i];
      let t = from[i];
      if (blo > 0) {
        // Runs are ascending: jump to the first position >= blo instead of stepping to it.
        let lo = t, hi = runEnd;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (positions[mid] < blo) lo = mid + 1;
          else hi = mid;
        }
        t = lo;
      }
      for (; t < runEnd; t++) {
        const j = positions[t];
        if (j >= bhi) break;
        const k = (stamp[prev + j] === row - 1 ? len[prev + j] : 0) + 1;
        len[cur + j + 1] = k;
        stamp[cur + j + 1] = row;
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
    }

    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
      bestsize++;
    }
    this.besti = besti;
    this.bestj = bestj;
    this.bestsize = bestsize;
  }

  /** difflib's find_longest_match(alo, ahi, blo, bhi) against first sequence `a`. */
  findLongestMatch(a: Int32Array, alo: number, ahi: number, blo: number, bhi: number): MatchBlock {
    this.locateAll(a);
    this.longest(a, alo, ahi, blo, bhi);
    return { a: this.besti, b: this.bestj, size: this.bestsize };
  }

  /**
   * The recursion of get_matching_blocks: returns the number of matched elements and, when
   * `blocks` is given, appends each raw (i, j, k) found. difflib pops regions from the end of
   * a list; the order only matters to the sort that follows, but is kept identical anyway.
   */
  private traverse(a: Int32Array, blocks?: number[]): number {
    const la = a.length, lb = this.seq.length;
    this.locateAll(a);
    // Each region yields at most one block and two sub-regions, so 4 ints per potential block.
    const need = 4 * (2 * Math.min(la, lb) + 2);
    if (stack.length < need) stack = new Int32Array(2 * need);
    let top = 0, matches = 0;
    stack[top++] = 0;
    stack[top++] = la;
    stack[top++] = 0;
    stack[top++] = lb;
    while (top) {
      const bhi = stack[--top], blo = stack[--top], ahi = stack[--top], alo = stack[--top];
      this.longest(a, alo, ahi, blo, bhi);
      const i = this.besti, j = this.bestj, k = this.bestsize;
      if (k) {
        matches += k;
        blocks?.push(i, j, k);
        if (alo < i && blo < j) {
          stack[top++] = alo;
          stack[top++] = i;
          stack[top++] = blo;
          stack[top++] = j;
        }
        if (i + k < ahi && j + k < bhi) {
          stack[top++] = i + k;
          stack[top++] = ahi;
          stack[top++] = j + k;
          stack[top++] = bhi;
        }
      }
    }
    return matches;
  }

  /** difflib's get_matching_blocks against first sequence `a`, ending with the (la, lb, 0) sentinel. */
  matchingBlocks(a: Int32Array): MatchBlock[] {
    const flat: number[] = [];
    this.traverse(a, flat);
    const blocks: MatchBlock[] = [];
    for (let t = 0; t < flat.length; t += 3) blocks.push({ a: flat[t], b: flat[t + 1], size: flat[t + 2] });
    blocks.sort((x, y) => x.a - y.a || x.b - y.b || x.size - y.size);
    const merged: MatchBlock[] = [];
    let i1 = 0, j1 = 0, k1 = 0;
    for (const { a: i2, b: j2, size: k2 } of blocks) {
      if (i1 + k1 === i2 && j1 + k1 === j2) {
        k1 += k2;
      } else {
        if (k1) merged.push({ a: i1, b: j1, size: k1 });
        i1 = i2;
        j1 = j2;
        k1 = k2;
      }
    }
    if (k1) merged.push({ a: i1, b: j1, size: k1 });
    merged.push({ a: a.length, b: this.seq.length, size: 0 });
    return merged;
  }

  /**
   * difflib's ratio(): 2 * matched elements / total elements. Collapsing adjacent blocks
   * never changes their total size, so the count comes straight from the recursion.
   */
  ratio(a: Int32Array): number {
    return calculateRatio(this.traverse(a), a.length + this.seq.length);
  }

  /** difflib's quick_ratio(): the multiset intersection, an upper bound on ratio(). */
  quickRatio(aSorted: Int32Array): number {
    return calculateRatio(multisetIntersection(aSorted, this.sorted), aSorted.length + this.seq.length);
  }
}

/** Size of the multiset intersection of two ascending arrays. */
export function multisetIntersection(x: Int32Array, y: Int32Array): number {
  let i = 0, j = 0, n = 0;
  while (i < x.length && j < y.length) {
    const d = x[i] - y[j];
    if (d === 0) {
      n++;
      i++;
      j++;
    } else if (d < 0) i++;
    else j++;
  }
  return n;
}

/** difflib's real_quick_ratio(): the length-only upper bound on ratio(). */
export function realQuickRatio(la: number, lb: number): number {
  return calculateRatio(Math.min(la, lb), la + lb);
}

/**
 * The API shape of `difflib.SequenceMatcher(None, a, b)` for one-off comparisons. The b2j
 * table is built on `b`, so ratio(a, b) and ratio(b, a) can differ, as in Python.
 */
export class SequenceMatcher {
  private readonly a: Int32Array;
  private readonly prepared: PreparedSequence;

  constructor(a: string | Int32Array, b: string | PreparedSequence | Int32Array) {
    this.a = typeof a === "string" ? toCodePoints(a) : a;
    this.prepared = b instanceof PreparedSequence ? b : new PreparedSequence(b);
  }

  /** The elements autojunk treated as popular in b. */
  get bpopular(): ReadonlySet<number> {
    return this.prepared.popular;
  }

  findLongestMatch(alo = 0, ahi = this.a.length, blo = 0, bhi = this.prepared.seq.length): MatchBlock {
    return this.prepared.findLongestMatch(this.a, alo, ahi, blo, bhi);
  }

  getMatchingBlocks(): MatchBlock[] {
    return this.prepared.matchingBlocks(this.a);
  }

  ratio(): number {
    return this.prepared.ratio(this.a);
  }

  quickRatio(): number {
    return this.prepared.quickRatio(this.a.slice().sort());
  }

  realQuickRatio(): number {
    return realQuickRatio(this.a.length, this.prepared.seq.length);
  }
}
