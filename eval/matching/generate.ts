/**
 * A generator of realistic bank months for the matching evaluation (`npm run eval:matching`):
 * clients with their invoices, and four weekly statements of the business account with what
 * really arrives there: payments by GiroCode reference, invoice numbers in the spellings people
 * type, combined and partial payments, cash discounts, bank fees deducted, typos, payments
 * without any number, and everything that is not an invoice payment (salaries, suppliers,
 * fees, taxes, refunds, transfers between own accounts, look-alike numbers and amounts).
 * Seeded: the same seed gives the same month.
 */
import { creditorReference } from '../../src/shared/creditor-reference.js';
import type { GenEntry } from '../../test/bank.fixtures.js';
import { iban, type Rng } from '../random.js';

export const DEV_SEEDS = [11, 12, 13];
/**
 * Held out at first; a wrong match on them was looked at and led to a rule, so they are
 * reported apart as seen seeds, no longer as held out.
 */
export const SEEN_SEEDS = [9001, 9002, 9003];
/** Never tuned on: first run after the rules were final, and matching not changed since. */
export const HELD_OUT_SEEDS = [5101, 5102, 5103];

/** Weighted choice among named cases. */
function weighted<K extends string>(r: Rng, w: Record<K, number>): K {
  const total = Object.values<number>(w).reduce((s, x) => s + x, 0);
  let x = r.next() * total;
  for (const [k, v] of Object.entries<number>(w)) {
    x -= v;
    if (x < 0) return k as K;
  }
  return Object.keys(w)[0] as K;
}

const germanIban = (blz: string, account: string) =>
  iban('DE', blz.padStart(8, '0') + account.padStart(10, '0'));

export interface PlannedClient {
  key: string;
  name: string;
  /** The IBANs this client pays from (most one; some two; a group shares one). */
  ibans: string[];
  /** A monthly retainer: several invoices of the same gross amount (look-alike amounts). */
  retainer: number | null;
}

export interface PlannedInvoice {
  client: number;
  /** Net cents; 19 % VAT on top. */
  net: number;
}

const COMPANY = ['Bäckerei', 'Autohaus', 'Praxis', 'Kanzlei', 'Architekten', 'Verlag', 'Hotel', 'Gärtnerei'];
const SURNAME = [
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Meyer',
  'Wagner',
  'Becker',
  'Hoffmann',
];
const FORM = ['GmbH', 'GmbH & Co. KG', 'AG', 'e.K.', 'OHG', 'UG (haftungsbeschränkt)'];

export function planClients(r: Rng, count: number): PlannedClient[] {
  const clients: PlannedClient[] = [];
  for (let i = 0; i < count; i++) {
    const ibans = [germanIban(String(10010010 + r.int(0, 899) * 1000), String(1_000_000 + i * 7919))];
    if (r.chance(0.1)) ibans.push(germanIban('50010517', String(5_000_000 + i * 104_729)));
    clients.push({
      key: `c${i}`,
      name: `${r.pick(COMPANY)} ${r.pick(SURNAME)} ${r.pick(FORM)}`,
      ibans,
      retainer: r.chance(0.3) ? r.int(4, 40) * 5000 : null,
    });
  }
  // A group of companies pays its members' invoices from one account.
  if (count > 3) clients[count - 1]!.ibans = [clients[count - 2]!.ibans[0]!];
  return clients;
}

export function planInvoices(r: Rng, clients: PlannedClient[], count: number): PlannedInvoice[] {
  const out: PlannedInvoice[] = [];
  for (let i = 0; i < count; i++) {
    // Busy clients get more invoices.
    const client = Math.min(clients.length - 1, Math.floor(r.next() ** 1.6 * clients.length));
    const retainer = clients[client]!.retainer;
    const net =
      retainer && r.chance(0.6) ? retainer : r.int(25, 3000) * 100 + (r.chance(0.5) ? 0 : r.int(1, 99));
    out.push({ client, net });
  }
  return out;
}

/** A booked invoice as the service answered it. */
export interface BookedInvoice {
  id: number;
  number: string;
  client: number;
  /** Gross cents. */
  gross: number;
}

/**
 * What a line really is. `pays`: the allocations a careful bookkeeper would record, or none.
 * `kind`: how it was written. `certain`: the evidence on the line suffices without asking
 * anyone (the service's own reference; a number and the exact open amount; several numbers
 * of one client and their exact sum; an IBAN that paid this client before and the only open
 * invoice of that amount), a number only when no other open invoice of the party has the same
 * open amount (numberIsOnlyEvidence). Only these are expected to be matched automatically.
 */
export interface Truth {
  kind: string;
  pays: { invoice_id: number; amount: number }[];
  certain: boolean;
}

/**
 * Whether a named invoice's party has another open invoice, not named, with the same open
 * amount: then the number in the text is the only evidence which one is paid, and a typed
 * number can be a typo (matching's numberIsOnlyEvidence); such a line is not certain.
 */
export function numberIsOnlyEvidence(
  named: readonly { id: number }[],
  party: readonly { id: number }[],
  open: ReadonlyMap<number, number>,
): boolean {
  const ids = new Set(named.map((n) => n.id));
  return named.some((n) =>
    party.some((o) => !ids.has(o.id) && (open.get(o.id) ?? 0) > 0 && open.get(o.id) === open.get(n.id)),
  );
}

/** The ways people write an invoice number into a transfer. */
export function spell(r: Rng, number: string): { text: string; readable: boolean } {
  const groups = number.match(/[A-Za-z]+|\d+/g) ?? [number];
  const [prefix, year, seq] = groups.length === 3 ? groups : ['', '', number];
  const short = String(Number(seq));
  const variant = weighted(r, {
    exact: 30,
    spaces: 8,
    nosep: 10,
    lower: 6,
    zeros: 10,
    cut: 10,
    cutZeros: 4,
    slash: 4,
    seqOnly: 4,
    embedded: 6,
    typo: 0,
  });
  const readable = variant !== 'seqOnly';
  const text = {
    exact: number,
    spaces: `${prefix} ${year} ${seq}`,
    nosep: `${prefix}${year}${seq}`,
    lower: number.toLowerCase(),
    zeros: `${prefix}-${year}-${short}`,
    cut: `${year}-${seq}`,
    cutZeros: `${year}-${short}`,
    slash: `${prefix}/${year}/${seq}`,
    seqOnly: `Nr. ${short}`,
    embedded: `${prefix}${year}-${seq}`,
    typo: number,
  }[variant];
  return { text, readable };
}

/**
 * One digit of the number changed or two swapped: what a hurried payer types. It may be the
 * number of another invoice, even an open one of the same party with the same amount: real
 * payers do that, so it is kept.
 */
export function typo(r: Rng, number: string): string {
  const digits = [...number].map((c, i) => (/\d/.test(c) ? i : -1)).filter((i) => i >= 0);
  const chars = [...number];
  const i = digits[digits.length - 1 - r.int(0, 2)]!;
  if (r.chance(0.5) && digits.includes(i - 1) && chars[i] !== chars[i - 1]) {
    [chars[i], chars[i - 1]] = [chars[i - 1]!, chars[i]!];
  } else {
    chars[i] = String((Number(chars[i]) + r.int(1, 8)) % 10);
  }
  return chars.join('');
}

const WRAP_BEFORE = [
  '',
  'Rechnung ',
  'Rechnung Nr. ',
  'Rg. ',
  'RG-NR ',
  'Invoice ',
  'Zahlung ',
  'Ihre Rechnung ',
];
const WRAP_AFTER = [
  '',
  ' vielen Dank',
  ' Kd-Nr 10442',
  ' vom 03.11.2026',
  ' Auftrag 4711/26',
  ' Leistung Oktober',
];

export interface PlannedLine {
  entry: GenEntry;
  truth: Truth;
}

/**
 * The month: four weeks of lines. Invoice payments come in the order of a real month; the
 * state this needs (what is still open, which IBAN paid whom before) is tracked here so the
 * truth says what a bookkeeper would know at that line.
 */
export function planMonth(
  r: Rng,
  clients: PlannedClient[],
  invoices: BookedInvoice[],
  ownIban: string,
): PlannedLine[][] {
  const weeks: PlannedLine[][] = [[], [], [], []];
  const open = new Map(invoices.map((i) => [i.id, i.gross]));
  const paidFrom = new Map<string, Set<number>>();
  let seq = 0;
  const ref = () => `EV${++seq}`;
  const day = (w: number) => `2026-11-${String(2 + w * 7 + r.int(0, 4)).padStart(2, '0')}`;
  const payerName = (c: PlannedClient) => c.name.toUpperCase();
  const wrap = (s: string) => `${r.pick(WRAP_BEFORE)}${s}${r.pick(WRAP_AFTER)}`.trim();
  const byClient = (c: number) => invoices.filter((i) => i.client === c && (open.get(i.id) ?? 0) > 0);
  const note = (iban: string, client: number) => {
    const set = paidFrom.get(iban) ?? new Set<number>();
    set.add(client);
    paidFrom.set(iban, set);
  };
  const push = (w: number, entry: Omit<GenEntry, 'booking' | 'ref'>, truth: Truth) =>
    weeks[w]!.push({ entry: { ...entry, booking: day(w), ref: ref() }, truth });
  const settle = (pays: Truth['pays']) => {
    for (const p of pays) open.set(p.invoice_id, (open.get(p.invoice_id) ?? 0) - p.amount);
  };

  const order = invoices.filter(() => r.chance(0.72));
  for (const [n, inv] of order.entries()) {
    if ((open.get(inv.id) ?? 0) <= 0) continue;
    const w = Math.min(3, Math.floor((n / order.length) * 4));
    const client = clients[inv.client]!;
    const iban = r.pick(client.ibans);
    const base = { name: payerName(client), iban, bic: 'GENODEF1XXX' };
    const due = open.get(inv.id)!;
    const knownIban = (paidFrom.get(iban)?.size ?? 0) === 1 && paidFrom.get(iban)!.has(inv.client);
    const kind = weighted(r, {
      giro: 30,
      number: 44,
      combined: 5,
      ibanOnly: knownIban ? 6 : 0,
      partialRef: 2,
      partialNumber: 2,
      skonto: 3,
      typo: 2,
      feeDeducted: 2,
      noNumber: 4,
    });
    let pays: Truth['pays'] = [{ invoice_id: inv.id, amount: due }];
    let certain = true;
    let entry: Omit<GenEntry, 'booking' | 'ref'>;
    if (kind === 'giro' || kind === 'partialRef') {
      const amount = kind === 'partialRef' ? Math.round(due / 2) : due;
      pays = [{ invoice_id: inv.id, amount }];
      entry = { ...base, amount, creditorRef: creditorReference(inv.number)! };
    } else if (kind === 'combined') {
      const others = byClient(inv.client)
        .filter((i) => i.id !== inv.id)
        .slice(0, r.int(1, 2));
      const all = [inv, ...others];
      pays = all.map((i) => ({ invoice_id: i.id, amount: open.get(i.id)! }));
      const spelled = all.map((i) => spell(r, i.number));
      certain = spelled.every((s) => s.readable) && !numberIsOnlyEvidence(all, byClient(inv.client), open);
      entry = {
        ...base,
        amount: pays.reduce((s, p) => s + p.amount, 0),
        text: `${r.pick(['Rechnungen ', 'RG ', 'Sammelzahlung ', ''])}${spelled.map((s) => s.text).join(r.pick([', ', ' + ', ' u. ', ' ']))}`,
      };
    } else if (kind === 'ibanOnly' || kind === 'noNumber') {
      const sameAmount = byClient(inv.client).filter((i) => open.get(i.id) === due);
      certain = kind === 'ibanOnly' && sameAmount.length === 1;
      entry = {
        ...base,
        amount: due,
        text: r.pick(['Rechnung Oktober', 'Zahlung', 'Honorar', 'Danke!', '']),
      };
    } else {
      const spelled = kind === 'typo' ? { text: typo(r, inv.number), readable: false } : spell(r, inv.number);
      let amount = due;
      if (kind === 'partialNumber') amount = Math.round(due * 0.4);
      if (kind === 'skonto') amount = Math.round(due * 0.98);
      if (kind === 'feeDeducted') amount = due - r.pick([750, 1000, 1500]);
      pays = [{ invoice_id: inv.id, amount }];
      certain =
        kind === 'number' && spelled.readable && !numberIsOnlyEvidence([inv], byClient(inv.client), open);
      entry = { ...base, amount, text: wrap(spelled.text) };
    }
    push(w, entry, { kind, pays, certain });
    settle(pays);
    note(iban, inv.client);
  }

  // Everything else on the account.
  const filler: [string, number, () => Omit<GenEntry, 'booking' | 'ref'>][] = [
    [
      'salary',
      12,
      () => ({
        amount: -r.int(180_000, 520_000),
        name: `${r.pick(SURNAME).toUpperCase()}, ${r.pick(['ANNA', 'JONAS', 'LEA', 'PAUL'])}`,
        iban: germanIban('20050550', String(r.int(1e6, 9e6))),
        text: 'Gehalt 11/2026',
      }),
    ],
    [
      'supplier',
      30,
      () => ({
        amount: -r.int(2_000, 400_000),
        name: r.pick([
          'Büromarkt Böttcher AG',
          'Telekom Deutschland GmbH',
          'Hetzner Online GmbH',
          'Adobe Systems',
        ]),
        iban: germanIban('70020270', String(r.int(1e6, 9e6))),
        text: `RE ${r.int(100000, 999999)} Kd ${r.int(1000, 9999)}`,
      }),
    ],
    ['fee', 4, () => ({ amount: -r.int(500, 4_000), text: 'Kontoführungsentgelt 11/2026' })],
    [
      'tax',
      2,
      () => ({ amount: -r.int(100_000, 900_000), name: 'FINANZAMT BERLIN', text: 'USt-VA 10/2026' }),
    ],
    [
      'ownTransfer',
      3,
      () => ({
        amount: r.pick([-1, 1]) * r.int(100_000, 2_000_000),
        name: 'EIGENES KONTO',
        iban: ownIban,
        text: 'Umbuchung',
      }),
    ],
    [
      'supplierRefund',
      4,
      () => {
        // A refund whose amount may equal an open invoice's: no number of ours, so never ours.
        const like = r.pick(invoices);
        return {
          amount: r.chance(0.5) ? like.gross : r.int(500, 50_000),
          name: 'AMAZON EU S.A R.L.',
          iban: germanIban('30020900', String(r.int(1e6, 9e6))),
          text: `Erstattung Bestellung ${r.int(100, 999)}-${r.int(1000000, 9999999)}`,
        };
      },
    ],
    [
      'taxRefund',
      1,
      () => ({ amount: r.int(10_000, 300_000), name: 'FINANZAMT BERLIN', text: 'Erstattung ESt 2025' }),
    ],
    [
      'lookAlike',
      6,
      () => {
        // Another company's document number that contains our year and sequence.
        const like = r.pick(invoices);
        const [, year, seq] = like.number.match(/[A-Za-z]+|\d+/g) ?? [];
        return {
          amount: r.chance(0.3) ? like.gross : r.int(500, 200_000),
          name: 'VERSICHERUNGSKAMMER',
          iban: germanIban('70050000', String(r.int(1e6, 9e6))),
          text: `Beitragsrueckerstattung Vertrag VS${year}${seq}7 Schaden ${year}-${seq}1`,
        };
      },
    ],
  ];
  for (const [kind, count, make] of filler)
    for (let i = 0; i < count; i++) push(r.int(0, 3), make(), { kind, pays: [], certain: false });
  for (const week of weeks) week.sort((a, b) => a.entry.booking.localeCompare(b.entry.booking));
  return weeks;
}

// ---- money paid out ------------------------------------------------------------------------

/**
 * A supplier as the account knows it. `format` makes its invoice numbers (suppliers number as
 * they like); `iban`: the account it is paid to; `onRecord`: the supplier record holds it
 * (else only some of its invoices print it, or nothing does); `subscription`: a monthly fee,
 * several open invoices of the same amount (look-alike amounts).
 */
export interface PlannedSupplier {
  key: string;
  name: string;
  iban: string;
  onRecord: boolean;
  format: (seq: number) => string;
  subscription: number | null;
}

/** An incoming invoice: the supplier's number and gross cents. */
export interface PlannedIncoming {
  supplier: number;
  number: string;
  gross: number;
  /** The invoice prints the supplier's IBAN. */
  printsIban: boolean;
}

/** An incoming invoice as the service answered it. */
export interface StoredIncoming extends PlannedIncoming {
  id: number;
}

const SUPPLIER = [
  'Büromarkt Böttcher AG',
  'Telekom Deutschland GmbH',
  'Hetzner Online GmbH',
  'Druckerei Weiß KG',
  'Stadtwerke Lindenau',
  'Kanzlei Roth & Partner',
  'IT-Service Krause',
  'Reinigung Blitzblank GmbH',
  'Spedition Nord GmbH',
  'Papier Pape OHG',
  'Software Schmiede GmbH',
  'Grafikbüro Lenz',
];

/** How suppliers number their invoices (all kinds seen on real incoming invoices). */
const FORMATS: ((r: Rng) => (seq: number) => string)[] = [
  () => (n) => `R-2026-${String(n).padStart(5, '0')}`,
  () => (n) => `2026-${String(4000 + n)}`,
  (r) => {
    const base = r.int(100, 899) * 1000;
    return (n) => String(base + n);
  },
  () => (n) => `INV/2026/${String(n).padStart(3, '0')}`,
  (r) => {
    const base = r.int(10, 99) * 1_000_000;
    return (n) => `RE${base + n}`;
  },
  (r) => {
    const base = 1_000_000_000 + r.int(0, 8_000_000) * 100;
    return (n) => String(base + n);
  },
  () => (n) => `AB-${String(98000 + n)}`,
  () => (n) => `${String(n).padStart(6, '0')}/26`,
];

export function planSuppliers(r: Rng, count: number): PlannedSupplier[] {
  const out: PlannedSupplier[] = [];
  for (let i = 0; i < count; i++)
    out.push({
      key: `s${i}`,
      name: `${SUPPLIER[i % SUPPLIER.length]}${i >= SUPPLIER.length ? ` ${i}` : ''}`,
      iban: germanIban(String(60050101 + i * 1000), String(7_000_000 + i * 15_485)),
      onRecord: r.chance(0.75),
      format: r.pick(FORMATS)(r),
      subscription: r.chance(0.25) ? r.int(10, 200) * 100 - 1 : null,
    });
  // Two suppliers numbering their invoices alike: the same numbers occur at both.
  if (count > 3) out[count - 1]!.format = out[count - 2]!.format;
  return out;
}

export function planIncoming(r: Rng, suppliers: PlannedSupplier[], count: number): PlannedIncoming[] {
  const out: PlannedIncoming[] = [];
  const next = suppliers.map(() => r.int(1, 400));
  for (let i = 0; i < count; i++) {
    const supplier = Math.min(suppliers.length - 1, Math.floor(r.next() ** 1.4 * suppliers.length));
    const s = suppliers[supplier]!;
    const gross =
      s.subscription && r.chance(0.7)
        ? s.subscription
        : r.int(10, 4000) * 100 + (r.chance(0.5) ? 0 : r.int(1, 99));
    out.push({ supplier, number: s.format(next[supplier]!++), gross, printsIban: r.chance(0.5) });
  }
  // The look-alike pair: their first invoices carry the same number.
  const n = suppliers.length;
  if (n > 3) {
    const a = out.find((x) => x.supplier === n - 2);
    const b = out.find((x) => x.supplier === n - 1);
    if (a && b) b.number = a.number;
  }
  return out;
}

/** The ways a supplier's number is typed into a transfer (mostly copied from the invoice). */
export function spellSupplier(r: Rng, number: string): { text: string; readable: boolean } {
  const groups = number.match(/[A-Za-z]+|\d+/g) ?? [number];
  const firstDigit = groups.findIndex((g) => /^\d/.test(g));
  const variant = weighted(r, {
    exact: 55,
    lower: 5,
    nosep: 10,
    spaces: 8,
    zeros: 8,
    cut: firstDigit > 0 ? 6 : 0,
    seqOnly: 4,
  });
  const digits = groups.filter((g) => /^\d/.test(g));
  const text = {
    exact: number,
    lower: number.toLowerCase(),
    nosep: groups.join(''),
    spaces: groups.join(' '),
    zeros: groups.map((g, i) => (/^\d/.test(g) && i > 0 ? String(Number(g)) : g)).join('-'),
    cut: groups.slice(firstDigit).join('-'),
    // The last digits alone: not enough to tell.
    seqOnly: `Nr. ${String(Number(digits.at(-1) ?? '0') % 1000)}`,
  }[variant];
  return { text, readable: variant !== 'seqOnly' };
}

const OUT_BEFORE = ['', 'Rechnung ', 'RE ', 'Rg.-Nr. ', 'Invoice ', 'Ihre Rechnung ', 'Zahlung '];
const OUT_AFTER = ['', ' Kd-Nr 10442', ' vom 28.10.2026', ' Kundennummer 4711', ' Danke', ' Vertrag 20261'];

/**
 * The money paid out in the month: transfers to suppliers for their invoices as a bookkeeper
 * types them in online banking, and what else leaves the account. Certain: the supplier's
 * number readable and its exact open amount (and, when two suppliers have that number, the
 * payee's IBAN known for one of them), several numbers of one supplier and their exact sum,
 * or no number but an IBAN known for one supplier and the only open invoice of that amount; a
 * number not when another open invoice of the supplier has the same open amount.
 */
export function planPayouts(
  r: Rng,
  suppliers: PlannedSupplier[],
  invoices: StoredIncoming[],
): PlannedLine[][] {
  const weeks: PlannedLine[][] = [[], [], [], []];
  const open = new Map(invoices.map((i) => [i.id, i.gross]));
  let seq = 0;
  const day = (w: number) => `2026-11-${String(2 + w * 7 + r.int(0, 4)).padStart(2, '0')}`;
  const push = (w: number, entry: Omit<GenEntry, 'booking' | 'ref'>, truth: Truth) =>
    weeks[w]!.push({ entry: { ...entry, booking: day(w), ref: `EO${++seq}` }, truth });
  const ofSupplier = (s: number) => invoices.filter((i) => i.supplier === s && (open.get(i.id) ?? 0) > 0);
  /** The IBAN is known for the supplier: on its record or printed on one of its invoices. */
  const ibanKnown = (s: number) =>
    suppliers[s]!.onRecord || invoices.some((i) => i.supplier === s && i.printsIban);
  const shared = (inv: StoredIncoming) =>
    invoices.some((o) => o.id !== inv.id && o.number === inv.number && o.supplier !== inv.supplier);
  const wrap = (s: string) => `${r.pick(OUT_BEFORE)}${s}${r.pick(OUT_AFTER)}`.trim();

  const order = invoices.filter(() => r.chance(0.75));
  for (const [n, inv] of order.entries()) {
    if ((open.get(inv.id) ?? 0) <= 0) continue;
    const w = Math.min(3, Math.floor((n / order.length) * 4));
    const s = suppliers[inv.supplier]!;
    const base = { name: s.name.toUpperCase(), iban: s.iban, bic: 'COBADEFFXXX' };
    const due = open.get(inv.id)!;
    const kind = weighted(r, {
      'out:number': 70,
      'out:combined': 6,
      'out:ibanOnly': ibanKnown(inv.supplier) ? 6 : 0,
      'out:partial': 4,
      'out:skonto': 3,
      'out:typo': 2,
      'out:noNumber': 3,
    });
    let pays: Truth['pays'] = [{ invoice_id: inv.id, amount: due }];
    let certain = true;
    let entry: Omit<GenEntry, 'booking' | 'ref'>;
    if (kind === 'out:combined') {
      const others = ofSupplier(inv.supplier)
        .filter((i) => i.id !== inv.id)
        .slice(0, r.int(1, 2));
      const all = [inv, ...others];
      pays = all.map((i) => ({ invoice_id: i.id, amount: open.get(i.id)! }));
      const spelled = all.map((i) => spellSupplier(r, i.number));
      certain =
        spelled.every((x) => x.readable) &&
        all.every((i) => !shared(i) || ibanKnown(i.supplier)) &&
        !numberIsOnlyEvidence(all, ofSupplier(inv.supplier), open);
      entry = {
        ...base,
        amount: -pays.reduce((t, p) => t + p.amount, 0),
        text: `${r.pick(['Rechnungen ', 'RE ', 'Sammelzahlung ', ''])}${spelled.map((x) => x.text).join(r.pick([', ', ' + ', ' u. ', ' ']))}`,
      };
    } else if (kind === 'out:ibanOnly' || kind === 'out:noNumber') {
      const sameAmount = ofSupplier(inv.supplier).filter((i) => open.get(i.id) === due);
      certain = kind === 'out:ibanOnly' && sameAmount.length === 1;
      entry = {
        ...base,
        amount: -due,
        text: r.pick(['Kundennummer 4711', 'Abo November', 'Danke', 'Vertrag 20261', '']),
      };
    } else {
      const spelled =
        kind === 'out:typo' ? { text: typo(r, inv.number), readable: false } : spellSupplier(r, inv.number);
      let amount = due;
      if (kind === 'out:partial') amount = Math.round(due * 0.5);
      if (kind === 'out:skonto') amount = Math.round(due * 0.98);
      pays = [{ invoice_id: inv.id, amount }];
      certain =
        kind === 'out:number' &&
        spelled.readable &&
        (!shared(inv) || ibanKnown(inv.supplier)) &&
        !numberIsOnlyEvidence([inv], ofSupplier(inv.supplier), open);
      entry = { ...base, amount: -amount, text: wrap(spelled.text) };
    }
    push(w, entry, { kind, pays, certain });
    for (const p of pays) open.set(p.invoice_id, (open.get(p.invoice_id) ?? 0) - p.amount);
  }

  // The same transfer sent twice by mistake, weeks later: the invoice is paid, nothing is open.
  const paidEarly = weeks[0]!.filter((l) => l.truth.kind === 'out:number').slice(0, 2);
  for (const { entry } of paidEarly)
    push(
      3,
      { amount: entry.amount, name: entry.name, iban: entry.iban, bic: entry.bic, text: entry.text },
      { kind: 'out:duplicate', pays: [], certain: false },
    );

  // Money out that pays no incoming invoice of the account, some looking like one.
  const someInvoice = () => r.pick(invoices);
  const filler: [string, number, () => Omit<GenEntry, 'booking' | 'ref'>][] = [
    [
      'out:salary',
      8,
      () => ({
        amount: -r.int(180_000, 520_000),
        name: `${r.pick(SURNAME).toUpperCase()}, ${r.pick(['ANNA', 'JONAS', 'LEA', 'PAUL'])}`,
        iban: germanIban('20050550', String(r.int(1e6, 9e6))),
        text: r.pick(['Gehalt 11/2026', 'Lohn November 2026 PersNr 1047']),
      }),
    ],
    ['out:fee', 3, () => ({ amount: -r.int(500, 4_000), text: 'Entgelt Kontofuehrung 11/2026' })],
    [
      'out:cardSettlement',
      2,
      // A card settlement of the amount of an open invoice: no number, no known IBAN.
      () => ({ amount: -someInvoice().gross, name: 'VISA ABRECHNUNG', text: 'Kartenabrechnung 11/2026' }),
    ],
    [
      'out:unrecorded',
      4,
      // A supplier whose invoice was never recorded, with a number of the same shape.
      () => {
        const like = someInvoice();
        return {
          amount: -r.int(2_000, 400_000),
          name: 'AMAZON EU S.A R.L.',
          iban: germanIban('30020900', String(r.int(1e6, 9e6))),
          text: `Bestellung ${like.number.replace(/\d(?=\D*$)/, (d) => String((Number(d) + 1) % 10))}9`,
        };
      },
    ],
    [
      'out:refundToClient',
      2,
      // Money back to a client: a number of ours, never a supplier's invoice.
      () => ({
        amount: -r.int(1_000, 50_000),
        name: 'PRAXIS MEYER',
        iban: germanIban('10010010', String(r.int(1e6, 9e6))),
        text: `Erstattung Gutschrift GS-2026-${String(r.int(1, 99)).padStart(5, '0')}`,
      }),
    ],
    [
      'in:supplierCredit',
      2,
      // A supplier refunds a credit note naming its invoice: money in, no outgoing invoice.
      () => {
        const like = someInvoice();
        return {
          amount: r.int(1_000, like.gross),
          name: suppliers[like.supplier]!.name.toUpperCase(),
          iban: suppliers[like.supplier]!.iban,
          text: `Gutschrift zu Rechnung ${like.number}`,
        };
      },
    ],
  ];
  for (const [kind, count, make] of filler)
    for (let i = 0; i < count; i++) push(r.int(0, 3), make(), { kind, pays: [], certain: false });
  return weeks;
}
