/**
 * Matching bank lines to invoices, with no false automatic match: a line is matched
 * automatically only when one rule of the table below names exactly one way to allocate it
 * and the money agrees to the cent; everything else is at most a ranked suggestion. Pure:
 * the service hands in the line, the invoices and what it knows of IBANs. Both directions
 * run the same rules: money in against outgoing invoices (the party is the client), money
 * out against incoming invoices (the party is the supplier; the service hands in the line
 * with the amount paid out as a positive `amount`).
 */
import { creditorReference, isValidCreditorReference } from '../../shared/creditor-reference.js';

export interface MatchLine {
  /** Cents to allocate: received (money in) or paid out (money out); 0 or less: nothing to do. */
  amount: number;
  currency: string;
  remittance: string | null;
  creditor_reference: string | null;
  end_to_end_id: string | null;
  counterparty_iban: string | null;
}

export interface Candidate {
  id: number;
  number: string;
  /** The party: the client (outgoing invoices) or the supplier (incoming invoices). */
  client_id: number | null;
  currency: string;
  /**
   * The structured creditor reference the payer copies (RF…); undefined: the one the service
   * prints for the number (outgoing invoices), null: none.
   */
  reference?: string | null;
  /** Open cents. */
  open: number;
  /** `open` read exactly (the invoice's own payment state), not estimated from stored totals. */
  exact: boolean;
  /**
   * `open` as loaded is the invoice's exact open amount (its stored totals say all), though
   * another request may have changed it since: enough to tell it from an invoice of another
   * amount (numberIsOnlyEvidence), never enough to settle it.
   */
  known?: boolean;
}

export type Reason = 'reference' | 'number_in_text' | 'amount_equal' | 'iban_known' | 'sum_of_invoices';

export interface Allocation {
  invoice_id: number;
  amount: number;
}

export interface Suggestion extends Allocation {
  score: number;
  reasons: Reason[];
}

export interface Decision {
  /** The allocations to record now; null: nothing is certain. */
  auto: Allocation[] | null;
  /** Which rule decided (for the answer and the docs). */
  rule: 'reference' | 'number_and_amount' | 'numbers_and_sum' | 'iban_and_amount' | null;
  suggestions: Suggestion[];
}

const WEIGHT: Record<Reason, number> = {
  reference: 100,
  number_in_text: 50,
  sum_of_invoices: 40,
  amount_equal: 30,
  iban_known: 20,
};

export { creditorReference };

/** RF references with valid check digits in a text (the longest valid reading of each). */
export function referencesIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toUpperCase().matchAll(/RF\s?\d{2}(?:\s?[A-Z0-9]){1,21}/g)) {
    const ref = m[0].replace(/\s+/g, '');
    for (let n = ref.length; n >= 5; n--) {
      const r = ref.slice(0, n);
      if (isValidCreditorReference(r)) {
        out.push(r);
        break;
      }
    }
  }
  return out;
}

const SEP = '[\\s\\-/._:#]*';
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How an invoice number is found in a text: in full, and (when safe) without its prefix. */
export interface NumberPattern {
  full: RegExp;
  cut: RegExp | null;
}

/**
 * The spellings of an invoice number people type: any separators (or none) between its
 * letter and digit groups, leading zeros of digit groups left out, and the letter prefix cut
 * when at least four significant digits remain. Never inside a longer number or a date-like
 * run; a prefix-cut hit inside another invoice's full hit does not count (hits()).
 */
export function numberPattern(invoiceNumber: string): NumberPattern | null {
  const segs = invoiceNumber.toUpperCase().match(/[A-Z]+|\d+/g);
  if (!segs) return null;
  const part = (seg: string) =>
    /^\d/.test(seg) ? `0*${escapeRe(seg.replace(/^0+(?=\d)/, ''))}` : escapeRe(seg);
  const last = segs.at(-1)!;
  const end = /^\d/.test(last) ? '(?![0-9]|[-/.,][0-9])' : '(?![A-Z])';
  const start = '(?<![A-Z0-9]|[0-9][-/.,])';
  const re = (s: string[]) => new RegExp(`${start}${s.map(part).join(SEP)}${end}`, 'g');
  const firstDigit = segs.findIndex((s) => /^\d/.test(s));
  if (firstDigit === 0 && segs.join('').replace(/^0+/, '').length < 4) {
    // A short plain number ("42") is no evidence in a free text.
    return null;
  }
  const rest = firstDigit > 0 ? segs.slice(firstDigit) : [];
  const significant = rest.join('').replace(/^0+/, '').replace(/[A-Z]/g, '').length;
  return { full: re(segs), cut: firstDigit > 0 && significant >= 4 ? re(rest) : null };
}

const spans = (re: RegExp, text: string): [number, number][] =>
  [...text.matchAll(re)].map((m) => [m.index!, m.index! + m[0].length]);

/** The text a line's invoice numbers are looked for in. */
export const searchText = (l: MatchLine): string =>
  [l.remittance ?? '', l.end_to_end_id ?? '', l.creditor_reference ?? ''].join(' | ').toUpperCase();

/**
 * Lookups over a list of candidates, built once per list (numbers and clients do not change;
 * open amounts may, in place): by the last group of the number (every spelling holds it), by
 * structured reference and by client. A line is then tested against the few invoices whose
 * last group its text holds, not against all of them.
 */
interface Index {
  byKey: Map<string, Candidate[]>;
  byRef: Map<string, Candidate[]>;
  byClient: Map<number, Candidate[]>;
}
const indexes = new WeakMap<readonly Candidate[], Index>();

/** The last letter or digit group of a number, digits without leading zeros. */
function keyOf(number: string): string | null {
  const last = number
    .toUpperCase()
    .match(/[A-Z]+|\d+/g)
    ?.at(-1);
  if (!last) return null;
  return /^\d/.test(last) ? last.replace(/^0+(?=\d)/, '') : last;
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

function indexOf(candidates: readonly Candidate[]): Index {
  let index = indexes.get(candidates);
  if (index) return index;
  index = { byKey: new Map(), byRef: new Map(), byClient: new Map() };
  for (const c of candidates) {
    const key = keyOf(c.number);
    if (key) push(index.byKey, key, c);
    const rf = c.reference === undefined ? creditorReference(c.number) : c.reference;
    if (rf) push(index.byRef, rf, c);
    if (c.client_id !== null) push(index.byClient, c.client_id, c);
  }
  indexes.set(candidates, index);
  return index;
}

const patternsOf = new WeakMap<Candidate, NumberPattern | null>();

/** A candidate's patterns, built when a text first names its key (most never are). */
function compiled(c: Candidate): NumberPattern | null {
  if (!patternsOf.has(c)) patternsOf.set(c, numberPattern(c.number));
  return patternsOf.get(c)!;
}

const parts = new WeakMap<Candidate, string[]>();

/**
 * What every spelling of a candidate's number holds literally (numberPattern: its groups from
 * the first digit group on, digits without leading zeros): a text lacking one cannot name it,
 * so the patterns are tried only on the few candidates that pass.
 */
function partsOf(c: Candidate): string[] {
  let list = parts.get(c);
  if (list) return list;
  const segs = c.number.toUpperCase().match(/[A-Z]+|\d+/g) ?? [];
  const firstDigit = segs.findIndex((seg) => /^\d/.test(seg));
  list = segs
    .slice(Math.max(firstDigit, 0))
    .map((seg) => (/^\d/.test(seg) ? seg.replace(/^0+(?=\d)/, '') : seg));
  parts.set(c, list);
  return list;
}

/** Candidates whose key occurs in the text (every substring of its letter and digit runs). */
function keyed(index: Index, text: string): Candidate[] {
  const out = new Set<Candidate>();
  for (const run of text.match(/[A-Z]+|\d+/g) ?? []) {
    for (let i = 0; i < run.length; i++) {
      for (let j = i + 1; j <= Math.min(run.length, i + 24); j++) {
        for (const c of index.byKey.get(run.slice(i, j)) ?? []) out.add(c);
      }
    }
  }
  return [...out];
}

interface Hits {
  byRef: Candidate[];
  byNumber: Candidate[];
}
/** Hits depend on the line and the numbers of the list only: one search per line and list. */
const hitsOf = new WeakMap<MatchLine, { all: readonly Candidate[]; hits: Hits }>();

/** The line's invoice hits: by structured reference, and by number in the text. */
function hits(
  line: MatchLine,
  all: readonly Candidate[],
  patterns: ReadonlyMap<number, NumberPattern | null>,
): Hits {
  const known = hitsOf.get(line);
  if (known?.all === all) return known.hits;
  const found = search(line, all, patterns);
  hitsOf.set(line, { all, hits: found });
  return found;
}

function search(
  line: MatchLine,
  all: readonly Candidate[],
  patterns: ReadonlyMap<number, NumberPattern | null>,
): Hits {
  const text = searchText(line);
  const index = indexOf(all);
  const refs = new Set([
    ...(line.creditor_reference ? [line.creditor_reference.replace(/\s+/g, '').toUpperCase()] : []),
    ...referencesIn(text),
  ]);
  const byRef = [...refs].flatMap((rf) => index.byRef.get(rf) ?? []);
  const candidates = keyed(index, text)
    .filter((c) => partsOf(c).every((part) => text.includes(part)))
    .sort((a, b) => a.id - b.id);
  const patternOf = (c: Candidate) => (patterns.has(c.id) ? patterns.get(c.id)! : compiled(c));
  const full = new Set<Candidate>();
  const covered: [number, number][] = [];
  for (const c of candidates) {
    const p = patternOf(c);
    const found = p ? spans(p.full, text) : [];
    if (found.length > 0) {
      full.add(c);
      covered.push(...found);
    }
  }
  const inside = ([a, b]: [number, number]) => covered.some(([x, y]) => x <= a && b <= y);
  const byNumber = candidates.filter((c) => {
    if (full.has(c)) return true;
    const cut = patternOf(c)?.cut;
    return cut ? spans(cut, text).some((s) => !inside(s)) : false;
  });
  return { byRef, byNumber };
}

/**
 * What a line's evidence names, read the same for a decision and for what it depends on.
 * `strict` (money out): a counterparty IBAN known for some parties vetoes an automatic match
 * to another party's invoice, and of numbers found for several parties only those of the one
 * party the IBAN is known for count.
 */
function evidence(
  line: MatchLine,
  candidates: readonly Candidate[],
  clientsOfIban: readonly number[],
  patterns: ReadonlyMap<number, NumberPattern | null>,
  strict: boolean,
) {
  const found = hits(line, candidates, patterns);
  const ibanClient = clientsOfIban.length === 1 ? clientsOfIban[0]! : null;
  let byNumber = found.byNumber;
  if (strict && ibanClient !== null && new Set(byNumber.map((c) => c.client_id)).size > 1) {
    const own = byNumber.filter((c) => c.client_id === ibanClient);
    if (own.length > 0) byNumber = own;
  }
  return {
    byRef: found.byRef,
    /** All invoices whose number the text holds (for suggestions). */
    named: found.byNumber,
    byNumber,
    ibanClient,
    payable: (c: Candidate) => c.currency === line.currency && c.open > 0 && c.exact,
    // Strict: a party the IBAN is known for, and it is not this one's: not certain.
    vetoed: (c: Candidate) =>
      strict && clientsOfIban.length > 0 && (c.client_id === null || !clientsOfIban.includes(c.client_id)),
  };
}

/**
 * Rule 2 before its last check: the invoices the numbers in the text settle in full, one
 * invoice and its exact open amount or several of one party whose open amounts add up to the
 * line exactly; null: they do not.
 */
function settledByNumbers(line: MatchLine, e: ReturnType<typeof evidence>): Candidate[] | null {
  const { byNumber, payable, vetoed } = e;
  if (byNumber.length === 0 || !byNumber.every(payable) || vetoed(byNumber[0]!)) return null;
  if (byNumber.length === 1) return byNumber[0]!.open === line.amount ? byNumber : null;
  const client = byNumber[0]!.client_id;
  const oneClient = client !== null && byNumber.every((c) => c.client_id === client);
  return oneClient && byNumber.reduce((s, c) => s + c.open, 0) === line.amount ? byNumber : null;
}

/** Every invoice of the parties of the given invoices, in the line's currency. */
const partyInvoices = (line: MatchLine, candidates: readonly Candidate[], settled: Candidate[]) => {
  const byClient = indexOf(candidates).byClient;
  const parties = new Set(settled.map((c) => c.client_id));
  return [...parties].flatMap((p) =>
    (p === null ? [] : (byClient.get(p) ?? [])).filter((c) => c.currency === line.currency),
  );
};

/**
 * Whether the numbers in the text are the only evidence which invoices are paid: a named
 * invoice's party has another open invoice, not named, with the same open amount. The amount
 * then tells nothing between them, and a typed number can be a typo that is the other's
 * number. An invoice without a party, or a party whose open amounts are not all read
 * exactly, cannot be told apart either.
 */
function numberIsOnlyEvidence(line: MatchLine, candidates: readonly Candidate[], settled: Candidate[]) {
  if (settled.some((c) => c.client_id === null)) return true;
  const party = partyInvoices(line, candidates, settled);
  if (!party.every((c) => c.exact || c.known === true)) return true;
  const named = new Set(settled);
  return settled.some((c) =>
    party.some((o) => !named.has(o) && o.client_id === c.client_id && o.open === c.open),
  );
}

/**
 * The invoices whose exact open amount the decision on a line may depend on: those its
 * reference or text names, every invoice of the one client its IBAN is known for, and, once
 * the named ones are read exactly and their numbers would settle them, every invoice of their
 * parties whose open amount is not known from the load (for numberIsOnlyEvidence). The
 * caller reads until nothing is added.
 */
export function relevantInvoices(
  line: MatchLine,
  candidates: readonly Candidate[],
  clientsOfIban: readonly number[],
  patterns: ReadonlyMap<number, NumberPattern | null> = new Map(),
  /** `parties: false`: without the parties' other invoices. */
  options: { strictParty?: boolean; parties?: boolean } = {},
): Set<number> {
  if (line.amount <= 0) return new Set();
  const e = evidence(line, candidates, clientsOfIban, patterns, options.strictParty === true);
  const ids = new Set([...e.byRef, ...e.named].map((c) => c.id));
  if (e.ibanClient !== null)
    for (const c of indexOf(candidates).byClient.get(e.ibanClient) ?? []) ids.add(c.id);
  const settled = e.byRef.length === 0 && options.parties !== false ? settledByNumbers(line, e) : null;
  if (settled) for (const c of partyInvoices(line, candidates, settled)) if (!c.known) ids.add(c.id);
  return ids;
}

/** See evidence() for `strictParty` (money out). */
export function decide(
  line: MatchLine,
  candidates: readonly Candidate[],
  clientsOfIban: readonly number[],
  patterns: ReadonlyMap<number, NumberPattern | null> = new Map(),
  options: { suggest?: boolean; strictParty?: boolean } = {},
): Decision {
  const none: Decision = { auto: null, rule: null, suggestions: [] };
  if (line.amount <= 0) return none;
  const e = evidence(line, candidates, clientsOfIban, patterns, options.strictParty === true);
  const { byRef, byNumber, ibanClient, payable, vetoed } = e;
  const suggestions = options.suggest === false ? [] : suggest(line, candidates, byRef, e.named, ibanClient);
  const decided = (rule: Decision['rule'], auto: Allocation[]): Decision => ({ auto, rule, suggestions });

  // 1. A structured reference names one invoice: up to its open amount (partial payments too).
  //    Its check digits make it no typo: it decides even between invoices of equal amounts.
  if (byRef.length === 1) {
    const c = byRef[0]!;
    if (payable(c) && line.amount <= c.open && !vetoed(c))
      return decided('reference', [{ invoice_id: c.id, amount: line.amount }]);
    return { ...none, suggestions };
  }
  if (byRef.length > 1) return { ...none, suggestions };

  // 2. Invoice numbers in the text: one invoice and its exact open amount, or several
  //    invoices of one party whose open amounts add up to the line exactly; and not when the
  //    number is the only evidence between invoices of the party with equal open amounts.
  if (byNumber.length > 0) {
    const settled = settledByNumbers(line, e);
    if (settled && !numberIsOnlyEvidence(line, candidates, settled))
      return decided(
        settled.length === 1 ? 'number_and_amount' : 'numbers_and_sum',
        settled.map((c) => ({ invoice_id: c.id, amount: c.open })),
      );
    return { ...none, suggestions };
  }

  // 3. No number, no reference: a counterparty IBAN known for exactly one party, and exactly
  //    one open invoice of that party (of all its open ones, read exactly) with this amount.
  if (ibanClient !== null) {
    const own = (indexOf(candidates).byClient.get(ibanClient) ?? []).filter(
      (c) => c.open > 0 && c.currency === line.currency,
    );
    const equal = own.filter((c) => c.open === line.amount);
    if (own.every((c) => c.exact) && equal.length === 1)
      return decided('iban_and_amount', [{ invoice_id: equal[0]!.id, amount: line.amount }]);
  }
  return { ...none, suggestions };
}

function suggest(
  line: MatchLine,
  candidates: readonly Candidate[],
  byRef: readonly Candidate[],
  byNumber: readonly Candidate[],
  ibanClient: number | null,
): Suggestion[] {
  const reasons = new Map<number, Set<Reason>>();
  const add = (c: Candidate, r: Reason) => {
    if (c.open <= 0 || c.currency !== line.currency) return;
    const set = reasons.get(c.id) ?? new Set<Reason>();
    set.add(r);
    reasons.set(c.id, set);
  };
  for (const c of byRef) add(c, 'reference');
  for (const c of byNumber) add(c, 'number_in_text');
  for (const c of candidates) {
    if (c.open === line.amount) add(c, 'amount_equal');
    if (ibanClient !== null && c.client_id === ibanClient && reasons.has(c.id)) add(c, 'iban_known');
  }
  const byId = new Map(candidates.map((c) => [c.id, c]));
  return [...reasons]
    .map(([id, set]) => {
      const c = byId.get(id)!;
      const list = [...set];
      return {
        invoice_id: id,
        amount: Math.min(c.open, line.amount),
        score: list.reduce((s, r) => s + WEIGHT[r], 0),
        reasons: list,
      };
    })
    .sort((a, b) => b.score - a.score || a.invoice_id - b.invoice_id)
    .slice(0, 5);
}
