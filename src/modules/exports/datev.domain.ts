import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors.js';
import {
  type AccountingSettings,
  type AccountKey,
  atLength,
  CHART_DEFAULTS,
} from '../account/profile.public.js';
import { documentEntries, EU_STATES, ossCountry } from './vat.domain.js';

/**
 * The DATEV format (EXTF, version 700) as pure functions: the header line, the column line and
 * one row per booking or party, as DATEV's Formatbeschreibung lays them out (Buchungsstapel:
 * category 21, format version 13, 125 fields; Debitoren/Kreditoren: category 16, format version
 * 5, 254 fields). Texts are quoted, amounts have a decimal comma and no thousands separator,
 * dates of bookings are DDMM (the year comes from the header), lines end with CRLF and the file
 * is Windows-1252. Which document becomes which rows is in the tables below.
 */

export const BUCHUNGSSTAPEL_COLUMNS: readonly string[] = [
  'Umsatz (ohne Soll/Haben-Kz)',
  'Soll/Haben-Kennzeichen',
  'WKZ Umsatz',
  'Kurs',
  'Basis-Umsatz',
  'WKZ Basis-Umsatz',
  'Konto',
  'Gegenkonto (ohne BU-Schlüssel)',
  'BU-Schlüssel',
  'Belegdatum',
  'Belegfeld 1',
  'Belegfeld 2',
  'Skonto',
  'Buchungstext',
  'Postensperre',
  'Diverse Adressnummer',
  'Geschäftspartnerbank',
  'Sachverhalt',
  'Zinssperre',
  'Beleglink',
  ...[1, 2, 3, 4, 5, 6, 7, 8].flatMap((n) => [`Beleginfo - Art ${n}`, `Beleginfo - Inhalt ${n}`]),
  'KOST1 - Kostenstelle',
  'KOST2 - Kostenstelle',
  'Kost-Menge',
  'EU-Land u. UStID (Bestimmung)',
  'EU-Steuersatz (Bestimmung)',
  'Abw. Versteuerungsart',
  'Sachverhalt L+L',
  'Funktionsergänzung L+L',
  'BU 49 Hauptfunktionstyp',
  'BU 49 Hauptfunktionsnummer',
  'BU 49 Funktionsergänzung',
  ...Array.from({ length: 20 }, (_, i) => [
    `Zusatzinformation - Art ${i + 1}`,
    `Zusatzinformation- Inhalt ${i + 1}`,
  ]).flat(),
  'Stück',
  'Gewicht',
  'Zahlweise',
  'Forderungsart',
  'Veranlagungsjahr',
  'Zugeordnete Fälligkeit',
  'Skontotyp',
  'Auftragsnummer',
  'Buchungstyp',
  'USt-Schlüssel (Anzahlungen)',
  'EU-Land (Anzahlungen)',
  'Sachverhalt L+L (Anzahlungen)',
  'EU-Steuersatz (Anzahlungen)',
  'Erlöskonto (Anzahlungen)',
  'Herkunft-Kz',
  'Buchungs GUID',
  'KOST-Datum',
  'SEPA-Mandatsreferenz',
  'Skontosperre',
  'Gesellschaftername',
  'Beteiligtennummer',
  'Identifikationsnummer',
  'Zeichnernummer',
  'Postensperre bis',
  'Bezeichnung SoBil-Sachverhalt',
  'Kennzeichen SoBil-Buchung',
  'Festschreibung',
  'Leistungsdatum',
  'Datum Zuord. Steuerperiode',
  'Fälligkeit',
  'Generalumkehr (GU)',
  'Steuersatz',
  'Land',
  'Abrechnungsreferenz',
  'BVV-Position',
  'EU-Land u. UStID (Ursprung)',
  'EU-Steuersatz (Ursprung)',
  'Abw. Skontokonto',
];

const bankBlock = (n: number) => [
  `Bankleitzahl ${n}`,
  `Bankbezeichnung ${n}`,
  `Bank-Kontonummer ${n}`,
  `Länderkennzeichen ${n}`,
  `IBAN-Nr. ${n}`,
  'Leerfeld',
  `SWIFT-Code ${n}`,
  `Abw. Kontoinhaber ${n}`,
  `Kennz. Hauptbankverb. ${n}`,
  `Bankverb ${n} Gültig von`,
  `Bankverb ${n} Gültig bis`,
];

export const DEBITOREN_KREDITOREN_COLUMNS: readonly string[] = [
  'Konto',
  'Name (Adressattyp Unternehmen)',
  'Unternehmensgegenstand',
  'Name (Adressattyp natürl. Person)',
  'Vorname (Adressattyp natürl. Person)',
  'Name (Adressattyp keine Angabe)',
  'Adressattyp',
  'Kurzbezeichnung',
  'EU-Land',
  'EU-UStID',
  'Anrede',
  'Titel/Akad. Grad',
  'Adelstitel',
  'Namensvorsatz',
  'Adressart',
  'Straße',
  'Postfach',
  'Postleitzahl',
  'Ort',
  'Land',
  'Versandzusatz',
  'Adresszusatz',
  'Abweichende Anrede',
  'Abw. Zustellbezeichnung 1',
  'Abw. Zustellbezeichnung 2',
  'Kennz. Korrespondenzadresse',
  'Adresse Gültig von',
  'Adresse Gültig bis',
  'Telefon',
  'Bemerkung (Telefon)',
  'Telefon GL',
  'Bemerkung (Telefon GL)',
  'E-Mail',
  'Bemerkung (E-Mail)',
  'Internet',
  'Bemerkung (Internet)',
  'Fax',
  'Bemerkung (Fax)',
  'Sonstige',
  'Bemerkung (Sonstige)',
  ...[1, 2, 3, 4, 5].flatMap(bankBlock),
  'Leerfeld',
  'Briefanrede',
  'Grußformel',
  'Kunden-/Lief.-Nr.',
  'Steuernummer',
  'Sprache',
  'Ansprechpartner',
  'Vertreter',
  'Sachbearbeiter',
  'Diverse-Konto',
  'Ausgabeziel',
  'Währungssteuerung',
  'Kreditlimit (Debitor)',
  'Zahlungsbedingung',
  'Fälligkeit in Tagen (Debitor)',
  'Skonto in Prozent (Debitor)',
  'Kreditoren-Ziel 1 Tg.',
  'Kreditoren-Skonto 1 %',
  'Kreditoren-Ziel 2 Tg.',
  'Kreditoren-Skonto 2 %',
  'Kreditoren-Ziel 3 Brutto Tg.',
  'Kreditoren-Ziel 4 Tg.',
  'Kreditoren-Skonto 4 %',
  'Kreditoren-Ziel 5 Tg.',
  'Kreditoren-Skonto 5 %',
  'Mahnung',
  'Kontoauszug',
  'Mahntext 1',
  'Mahntext 2',
  'Mahntext 3',
  'Kontoauszugstext',
  'Mahnlimit Betrag',
  'Mahnlimit %',
  'Zinsberechnung',
  'Mahnzinssatz 1',
  'Mahnzinssatz 2',
  'Mahnzinssatz 3',
  'Lastschrift',
  'Leerfeld',
  'Mandantenbank',
  'Zahlungsträger',
  ...Array.from({ length: 15 }, (_, i) => `Indiv. Feld ${i + 1}`),
  ...[
    'Abweichende Anrede',
    'Adressart',
    'Straße',
    'Postfach',
    'Postleitzahl',
    'Ort',
    'Land',
    'Versandzusatz',
    'Adresszusatz',
    'Abw. Zustellbezeichnung 1',
    'Abw. Zustellbezeichnung 2',
    'Adresse Gültig von',
    'Adresse Gültig bis',
  ].map((c) => `${c} (Rechnungsadresse)`),
  ...[6, 7, 8, 9, 10].flatMap(bankBlock),
  'Nummer Fremdsystem',
  'Insolvent',
  ...Array.from({ length: 10 }, (_, i) => `SEPA-Mandatsreferenz ${i + 1}`),
  'Verknüpftes OPOS-Konto',
  'Mahnsperre bis',
  'Lastschriftsperre bis',
  'Zahlungssperre bis',
  'Gebührenberechnung',
  'Mahngebühr 1',
  'Mahngebühr 2',
  'Mahngebühr 3',
  'Pauschalenberechnung',
  'Verzugspauschale 1',
  'Verzugspauschale 2',
  'Verzugspauschale 3',
  'Alternativer Suchname',
  'Status',
  'Anschrift manuell geändert (Korrespondenzadresse)',
  'Anschrift individuell (Korrespondenzadresse)',
  'Anschrift manuell geändert (Rechnungsadresse)',
  'Anschrift individuell (Rechnungsadresse)',
  'Fristberechnung bei Debitor',
  'Mahnfrist 1',
  'Mahnfrist 2',
  'Mahnfrist 3',
  'Letzte Frist',
];

// --- fields ---------------------------------------------------------------------------------

/** A quoted text field: quotes doubled, line breaks and tabs made blanks, cut to `max`. */
export function text(value: string | null | undefined, max = 0): string {
  if (value === null || value === undefined || value === '') return '';
  let v = value.replace(/[\r\n\t]+/g, ' ').trim();
  if (max > 0) v = [...v].slice(0, max).join('');
  return `"${v.replaceAll('"', '""')}"`;
}

/** Cents as DATEV writes amounts: decimal comma, no thousands separator, no sign. */
export function amount(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a whole number of cents: ${cents}`);
  const abs = Math.abs(cents);
  return `${Math.trunc(abs / 100)},${String(abs % 100).padStart(2, '0')}`;
}

/** YYYY-MM-DD as the Belegdatum (DDMM). */
export const ddmm = (date: string): string => `${date.slice(8, 10)}${date.slice(5, 7)}`;

/** YYYY-MM-DD as YYYYMMDD (header dates). */
export const ymd = (date: string): string => date.replaceAll('-', '');

/** An RFC 3339 timestamp as the header's "Erzeugt am" (YYYYMMDDHHMMSSFFF, UTC). */
export function createdStamp(iso: string): string {
  const d = new Date(iso);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${p(d.getUTCMilliseconds(), 3)}`;
}

/** Belegfeld 1: at most 36 of the characters DATEV allows there (others are left out). */
export const belegfeld1 = (number: string): string => text(number.replace(/[^A-Za-z0-9$%&*+\-/]/g, ''), 36);

// --- header ---------------------------------------------------------------------------------

export interface HeaderInput {
  category: 21 | 16;
  createdAt: string;
  settings: Pick<
    AccountingSettings,
    'datev_consultant_number' | 'datev_client_number' | 'account_length' | 'chart'
  >;
  fiscalYearStart: string;
  dateFrom: string;
  dateTo: string;
  label: string;
  locked: boolean;
}

/**
 * The first line, 31 fields: Kennzeichen, Versionsnummer, Formatkategorie, Formatname,
 * Formatversion, Erzeugt am, (Importiert), Herkunft, Exportiert von, Importiert von,
 * Beraternummer, Mandantennummer, WJ-Beginn, Sachkontenlänge, Datum vom, Datum bis,
 * Bezeichnung, Diktatkürzel, Buchungstyp, Rechnungslegungszweck, Festschreibung, WKZ,
 * (reserviert), Derivatskennzeichen, (reserviert), (reserviert), Sachkontenrahmen,
 * ID der Branchenlösung, (reserviert), (reserviert), Anwendungsinformation.
 */
export function headerLine(h: HeaderInput): string {
  const bookings = h.category === 21;
  return [
    '"EXTF"',
    '700',
    String(h.category),
    bookings ? '"Buchungsstapel"' : '"Debitoren/Kreditoren"',
    bookings ? '13' : '5',
    createdStamp(h.createdAt),
    '',
    '"RE"',
    '""',
    '""',
    String(h.settings.datev_consultant_number ?? ''),
    String(h.settings.datev_client_number ?? ''),
    ymd(h.fiscalYearStart),
    String(h.settings.account_length),
    bookings ? ymd(h.dateFrom) : '',
    bookings ? ymd(h.dateTo) : '',
    text(h.label, 30) || '""',
    '""',
    bookings ? '1' : '',
    bookings ? '0' : '',
    bookings ? (h.locked ? '1' : '0') : '',
    bookings ? '"EUR"' : '""',
    '',
    '""',
    '',
    '',
    h.settings.chart === 'SKR04' ? '"04"' : '"03"',
    '',
    '',
    '""',
    '""',
  ].join(';');
}

/** The first day of the fiscal year that holds `date`. */
export function fiscalYearStart(date: string, startMonth: number): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const y = month >= startMonth ? year : year - 1;
  return `${y}-${String(startMonth).padStart(2, '0')}-01`;
}

// --- bookings -------------------------------------------------------------------------------

/** One row of the Buchungsstapel; `account` is the side `side` (S: debit, H: credit) names. */
export interface Booking {
  cents: number;
  side: 'S' | 'H';
  currency: string;
  account: string;
  contra: string;
  buKey: string;
  date: string;
  document: string;
  text: string;
  /** Field 40, EU-Land u. UStID (Bestimmung): the buyer's VAT id, or (OSS) its country. */
  euDestination?: string | null;
  /** Field 41, EU-Steuersatz (Bestimmung): the destination state's rate of an OSS row (`20,00`). */
  euRate?: string;
  /** Field 123, EU-Land u. UStID (Ursprung): the seller's VAT id on an OSS row. */
  euOrigin?: string | null;
  /** GUID of the document (Belegbild) in document.xml the row links to. */
  link?: string;
}

export function bookingRow(b: Booking): string {
  const f: string[] = new Array(BUCHUNGSSTAPEL_COLUMNS.length).fill('');
  f[0] = amount(b.cents);
  f[1] = `"${b.side}"`;
  f[2] = text(b.currency);
  f[6] = b.account;
  f[7] = b.contra;
  f[8] = text(b.buKey);
  f[9] = ddmm(b.date);
  f[10] = belegfeld1(b.document);
  f[13] = text(b.text, 60);
  f[19] = b.link ? text(`BEDI "${b.link}"`) : '';
  f[39] = text(b.euDestination ?? '', 15);
  f[40] = b.euRate ?? '';
  f[122] = text(b.euOrigin ?? '', 15);
  return f.join(';');
}

/** A tax entry of a booked document (its frozen `document`): decimal strings. */
export interface TaxEntry {
  rate: string;
  net: string;
  tax: string;
  category?: string | null;
}

/** Which revenue account a tax entry is booked on: by its VAT category, then by its rate. */
const REVENUE_BY_CATEGORY: Record<string, AccountKey> = {
  AE: 'revenue_reverse_charge',
  K: 'revenue_intra_eu',
  E: 'revenue_tax_free',
  Z: 'revenue_tax_free',
  G: 'revenue_tax_free',
  O: 'revenue_tax_free',
};
const REVENUE_BY_RATE: Record<string, AccountKey> = {
  '19': 'revenue_19',
  '7': 'revenue_7',
  '0': 'revenue_tax_free',
};

const rateKey = (rate: string) => String(Number(rate));

/** The general-ledger accounts the bookings use: the settings' (`revenue_oss` among them). */
export type BookingAccounts = Record<AccountKey, string>;

/**
 * One-Stop-Shop sales (a consumer in another EU state charged that state's VAT, as the OSS
 * report reads them) go to the profile's `revenue_oss` account, by default DATEV's "Erlöse aus
 * im anderen EU-Land steuerpflichtigen Lieferungen" (SKR03 8320, SKR04 4320). It is no
 * automatic account, so the rows carry tax key 240 (OSS, supplied from Germany), and DATEV
 * takes the state and its rate from fields 40 and 41, from which it derives the tax.
 */
export const OSS_TAX_KEY = '240';

/** The chart's default OSS revenue account at the account length (DATEV pads with zeros). */
export const ossRevenueAccount = (s: Pick<AccountingSettings, 'chart' | 'account_length'>): string =>
  atLength(CHART_DEFAULTS[s.chart].revenue_oss, s.account_length);

/** A rate DATEV's field 41 holds: up to two digits and two decimals. */
const EU_RATE = /^(\d{1,2})(?:\.(\d{1,2}))?$/;

/** A rate in hundredths of a percent (`5.5` → 550); one field 41 cannot hold is refused. */
function rateHundredths(rate: string, doc: string): number {
  const m = EU_RATE.exec(rate);
  if (!m)
    throw new AppError(
      'unprocessable',
      `Document ${doc} has a tax rate of ${rate} %, which DATEV cannot hold`,
    );
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** A rate as field 41 writes it: two decimals with a comma (`20,00`, `5,50`). */
export function euRateField(rate: string, doc: string): string {
  const h = rateHundredths(rate, doc);
  return `${Math.trunc(h / 100)},${String(h % 100).padStart(2, '0')}`;
}

/**
 * The tax DATEV derives from a gross amount (cents) at the rate of field 41: gross × rate /
 * (100 + rate), rounded half away from zero, exactly (integers; every row of a month runs it).
 */
export function datevTax(gross: number, rate: string, doc = ''): number {
  const h = BigInt(rateHundredths(rate, doc));
  const p = BigInt(Math.abs(gross)) * h;
  const d = 10000n + h;
  return Math.sign(gross) * Number((2n * p + d) / (2n * d));
}

/** A country as DATEV names EU states (Greece is EL, as in VAT ids). */
export const datevCountry = (code: string): string => (code === 'GR' ? 'EL' : code);

/** A VAT id of an EU state (spaces removed), else null. */
export function euVatId(vatId: string | null | undefined): string | null {
  const v = (vatId ?? '').replace(/\s/g, '').toUpperCase();
  return /^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(v) && EU_STATES.has(v.slice(0, 2)) ? v : null;
}

export function revenueAccount(
  entry: { rate: string; category?: string | null },
  accounts: Record<AccountKey, string>,
  doc: string,
): string {
  const key =
    Number(entry.rate) === 0
      ? (REVENUE_BY_CATEGORY[entry.category ?? 'E'] ?? 'revenue_tax_free')
      : REVENUE_BY_RATE[rateKey(entry.rate)];
  if (!key)
    throw new AppError(
      'unprocessable',
      `Document ${doc} has a tax rate of ${entry.rate} %, for which no revenue account is set (19, 7 and 0 % are; another EU state's rate only on a sale to a consumer there, under the One-Stop-Shop)`,
    );
  return accounts[key];
}

export interface OutgoingDocument {
  type: string;
  number: string;
  date: string;
  currency: string;
  debtor: string;
  partyName: string;
  buyerVatId: string | null;
  /** The buyer's country as booked: decides, with its VAT id and the rate, what is OSS. */
  buyerCountry: string | null;
  /** The seller's VAT id as booked: the origin of an OSS row. */
  sellerVatId: string | null;
  taxes: TaxEntry[];
  /** Earlier deposits a final invoice deducts (net and tax, positive). */
  deductions: { net: string; tax: string }[];
}

/**
 * A booked invoice or credit: one row per tax rate, gross on the debtor against the revenue
 * account of the rate (automatic accounts: no BU key). A positive amount debits the debtor (S),
 * a negative one (credits have negative lines) credits it (H). A final invoice's deductions go
 * back off the revenue of their rate. An OSS rate goes to the OSS account with key 240, the
 * state and rate in fields 40/41 and the seller's VAT id in 123; the tax DATEV derives from the
 * gross at that rate must be the document's to the cent (it is for tax computed on the rate's
 * net, as every booked document's is), else the export is refused rather than off by a cent.
 */
export function outgoingBookings(d: OutgoingDocument, accounts: BookingAccounts): Booking[] {
  const buyer = { country_code: d.buyerCountry, vat_id: d.buyerVatId };
  // Amounts carry their sign already: a credit's lines are negative, deductions come off.
  return documentEntries(d.taxes, d.deductions)
    .map((entry) => ({ entry, cents: entry.net + entry.tax }))
    .filter((r) => r.cents !== 0)
    .map(({ entry, cents }): Booking => {
      // One literal per kind of row (no spread): this runs for every row of a month.
      const country = ossCountry(entry.rate, buyer);
      if (country === null)
        return {
          cents: Math.abs(cents),
          side: cents > 0 ? 'S' : 'H',
          currency: d.currency,
          account: d.debtor,
          contra: revenueAccount(entry, accounts, d.number),
          buKey: '',
          date: d.date,
          document: d.number,
          text: d.partyName,
          euDestination: entry.category === 'AE' || entry.category === 'K' ? d.buyerVatId : null,
        };
      const derived = datevTax(Math.abs(cents), entry.rate, d.number);
      if (derived !== Math.abs(entry.tax))
        throw new AppError(
          'unprocessable',
          `Document ${d.number}: its tax at ${entry.rate} % (${amount(entry.tax)}) is not the ${amount(derived)} DATEV derives from the gross`,
        );
      return {
        cents: Math.abs(cents),
        side: cents > 0 ? 'S' : 'H',
        currency: d.currency,
        account: d.debtor,
        contra: accounts.revenue_oss,
        buKey: OSS_TAX_KEY,
        date: d.date,
        document: d.number,
        text: d.partyName,
        euDestination: datevCountry(country),
        euRate: euRateField(entry.rate, d.number),
        euOrigin: euVatId(d.sellerVatId),
      };
    });
}

/**
 * The invoice of a dunning letter's charges: damages, not a supply (no VAT). Its fees (dunning
 * fee and lump sum) go to the fee account, its default interest to the interest account.
 */
export function chargeBookings(
  d: Pick<OutgoingDocument, 'number' | 'date' | 'currency' | 'debtor' | 'partyName'>,
  charges: { fees: number; interest: number },
  accounts: Record<AccountKey, string>,
): Booking[] {
  const rows: [number, AccountKey][] = [
    [charges.fees, 'fee_income'],
    [charges.interest, 'interest_income'],
  ];
  return rows
    .filter(([cents]) => cents > 0)
    .map(([cents, key]) => ({
      cents,
      side: 'S',
      currency: d.currency,
      account: d.debtor,
      contra: accounts[key],
      buKey: '',
      date: d.date,
      document: d.number,
      text: d.partyName,
    }));
}

/** Money received for an invoice: the bank is debited, the debtor credited. */
export function paymentReceivedBooking(p: {
  cents: number;
  date: string;
  currency: string;
  bank: string;
  debtor: string;
  number: string;
  partyName: string;
}): Booking {
  return {
    cents: p.cents,
    side: 'S',
    currency: p.currency,
    account: p.bank,
    contra: p.debtor,
    buKey: '',
    date: p.date,
    document: p.number,
    text: p.partyName,
  };
}

/** Input tax keys (BU) of DATEV for a booking's rate: 9 is 19 % Vorsteuer, 8 is 7 %. */
const INPUT_TAX_KEY: Record<string, string> = { '19': '9', '7': '8' };

/**
 * A booking of an incoming invoice on an expense account: the creditor is credited (H) with
 * the gross, the expense debited with the input tax key of the rate; a credit note the other way.
 */
export function incomingBooking(b: {
  cents: number;
  taxRate: string | null;
  expense: string;
  creditor: string;
  date: string;
  number: string;
  partyName: string;
  isCredit: boolean;
}): Booking {
  return {
    cents: b.cents,
    side: b.isCredit ? 'S' : 'H',
    currency: 'EUR',
    account: b.creditor,
    contra: b.expense,
    buKey: b.taxRate === null ? '' : (INPUT_TAX_KEY[rateKey(b.taxRate)] ?? ''),
    date: b.date,
    document: b.number,
    text: b.partyName,
  };
}

/** Money paid to a supplier: the creditor is debited, the bank credited. */
export function paymentMadeBooking(p: {
  cents: number;
  date: string;
  bank: string;
  creditor: string;
  number: string;
  partyName: string;
}): Booking {
  return {
    cents: p.cents,
    side: 'H',
    currency: 'EUR',
    account: p.bank,
    contra: p.creditor,
    buKey: '',
    date: p.date,
    document: p.number,
    text: p.partyName,
  };
}

// --- master data ----------------------------------------------------------------------------

export interface Party {
  number: string;
  name: string;
  street: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  vat_id: string | null;
  email: string | null;
}

/** A debtor or creditor: a company (Adressattyp 2) with its address and EU VAT id. */
export function partyRow(p: Party): string {
  const f: string[] = new Array(DEBITOREN_KREDITOREN_COLUMNS.length).fill('');
  const vat = p.vat_id?.replace(/\s/g, '') ?? '';
  const euVat = /^[A-Z]{2}/.test(vat) ? vat : '';
  f[0] = p.number;
  f[1] = text(p.name, 50);
  f[6] = '"2"';
  f[7] = text(p.name, 15);
  f[8] = text(euVat.slice(0, 2));
  f[9] = text(euVat.slice(2), 13);
  f[14] = p.street ? '"STR"' : '';
  f[15] = text(p.street, 36);
  f[17] = text(p.zip, 10);
  f[18] = text(p.city, 30);
  f[19] = text(p.country_code, 2);
  f[32] = text(p.email, 60);
  return f.join(';');
}

// --- files ----------------------------------------------------------------------------------

/** The lines of a file as DATEV reads it: header, column line, rows, each ending with CRLF. */
export const extfFile = (header: string, columns: readonly string[], rows: string[]): string =>
  `${[header, columns.join(';'), ...rows].join('\r\n')}\r\n`;

/** Code points 0x80–0x9F of Windows-1252 (the rest of 0x00–0xFF is Latin-1). */
const CP1252_HIGH: Record<number, number> = {
  8364: 0x80,
  8218: 0x82,
  402: 0x83,
  8222: 0x84,
  8230: 0x85,
  8224: 0x86,
  8225: 0x87,
  710: 0x88,
  8240: 0x89,
  352: 0x8a,
  8249: 0x8b,
  338: 0x8c,
  381: 0x8e,
  8216: 0x91,
  8217: 0x92,
  8220: 0x93,
  8221: 0x94,
  8226: 0x95,
  8211: 0x96,
  8212: 0x97,
  732: 0x98,
  8482: 0x99,
  353: 0x9a,
  8250: 0x9b,
  339: 0x9c,
  382: 0x9e,
  376: 0x9f,
};

/** Text as Windows-1252 bytes; a character it cannot hold becomes `?`. */
export function windows1252(s: string): Uint8Array {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80 || (cp >= 0xa0 && cp <= 0xff)) out.push(cp);
    else out.push(CP1252_HIGH[cp] ?? 0x3f);
  }
  return Uint8Array.from(out);
}

// --- Belegbilder (document.xml) -------------------------------------------------------------

/** DATEV's document package format (Belegbilder), the namespace of its document.xml. */
export const DOCUMENT_XML_NAMESPACE = 'http://xml.datev.de/bedi/tps/document/v05.0';

/** A file of the package: its GUID, whether outgoing (2) or incoming (1), its name in the ZIP. */
export interface DocumentImage {
  guid: string;
  type: 1 | 2;
  name: string;
}

/**
 * The GUID of a document (`outgoing_invoice:12`) of an account: derived from them by SHA-256
 * (RFC 9562 version 8), so every export of the same books links the same GUIDs.
 */
export function documentGuid(accountId: number, key: string): string {
  const b = createHash('sha256').update(`datev-document\0${accountId}\0${key}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A file name for the ZIP: `prefix_id_number.ext`, only letters, digits, `-` and `_` in the number. */
export function documentFileName(prefix: string, id: number, number: string | null, ext: string): string {
  const n = (number ?? '').replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40);
  return `${prefix}_${id}${n ? `_${n}` : ''}.${ext.replace(/[^a-z0-9]/gi, '').toLowerCase() || 'pdf'}`;
}

const xmlText = (v: string) =>
  v.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * DATEV's document.xml (Belegbilder, XML interface): one `document` per file, its GUID (the
 * rows' Beleglink), type 2 outgoing / 1 incoming, and the file in the ZIP as its extension.
 */
export function documentXml(h: { createdAt: string; description: string }, docs: DocumentImage[]): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
    `<archive xmlns="${DOCUMENT_XML_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${DOCUMENT_XML_NAMESPACE} Document_v050.xsd" version="5.0" generatingSystem="pm-invoicing">`,
    '  <header>',
    `    <date>${h.createdAt.slice(0, 19)}</date>`,
    `    <description>${xmlText(h.description)}</description>`,
    '  </header>',
    '  <content>',
    ...docs.flatMap((d) => [
      `    <document guid="${d.guid}" type="${d.type}" processID="1">`,
      `      <extension xsi:type="File" name="${xmlText(d.name)}"/>`,
      '    </document>',
    ]),
    '  </content>',
    '</archive>',
    '',
  ];
  return lines.join('\r\n');
}
