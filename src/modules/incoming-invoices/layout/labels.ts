/**
 * The labels an invoice prints before its values, in German, English and French, ranked:
 * a specific label ("Rechnungsdatum") beats a general one ("Datum"). Targets that are not
 * fields of ours (customer number, order date, the buyer's VAT id …) are listed too, so their
 * values are recognised as taken and never read as something else.
 */

export type Target =
  | 'invoice_number'
  | 'date'
  | 'due_date'
  | 'delivery_date'
  | 'service_period'
  | 'net_total'
  | 'tax_total'
  | 'gross_total'
  | 'prepaid_total'
  | 'amount_due'
  | 'supplier_vat_id'
  | 'supplier_tax_number'
  | 'iban'
  | 'bic'
  | 'payment_reference'
  | 'buyer_reference'
  | 'recipient'
  | 'other';

export type ValueKind =
  | 'id'
  | 'date'
  | 'amount'
  | 'period'
  | 'vat'
  | 'taxno'
  | 'iban'
  | 'bic'
  | 'text'
  | 'none';

export interface Label {
  target: Target;
  kind: ValueKind;
  rank: number;
  re: RegExp;
}

/** After a label: not inside a longer word ("Datum" is no label in "Datumsangabe"). */
const END = '(?![\\p{L}\\d-])';

const label = (target: Target, kind: ValueKind, rank: number, alternatives: string[]): Label => ({
  target,
  kind,
  rank,
  re: new RegExp(`^(?:${alternatives.join('|')})${END}\\s*[:#]?\\s*`, 'iu'),
});

const NO = '(?:nummer|nr\\.?|no\\.?|n°|number|#)';

export const LABELS: Label[] = [
  label('invoice_number', 'id', 10, [
    `rechnungs-?\\s?${NO}`,
    `rechnung\\s?-?\\s?${NO}`,
    're\\.?-?\\s?nr\\.?',
    `invoice\\s?${NO}`,
    'invoice\\s?(?:id|ref(?:erence)?)',
    'n°\\s?de\\s?(?:la\\s)?facture',
    'num[ée]ro\\s?de\\s?(?:la\\s)?facture',
    'no\\.?\\s?de\\s?facture',
    'facture\\s?(?:n°|no\\.?|num[ée]ro)',
    `gutschrifts?-?\\s?${NO}`,
    `credit\\s?note\\s?${NO}`,
    `avoir\\s?(?:n°|no\\.?|num[ée]ro)`,
    "n°\\s?d'avoir",
    // Dutch
    `factuur-?\\s?${NO}`,
  ]),
  label('invoice_number', 'id', 6, [`beleg-?\\s?${NO}`, `document\\s?${NO}`]),
  // A bare "Nummer", "Number", "N°", "Reference" in the document's header block.
  label('invoice_number', 'id', 4, [
    'nummer',
    'number',
    'num[ée]ro',
    'n°',
    'nr\\.',
    'no\\.',
    'reference',
    'r[ée]f[ée]rence',
  ]),
  label('date', 'date', 10, [
    'rechnungsdatum',
    'rechnungs-datum',
    'gutschriftsdatum',
    'ausstellungsdatum',
    'invoice\\s?date',
    'date\\s?of\\s?invoice',
    'issue\\s?date',
    'date\\s?of\\s?issue',
    'credit\\s?note\\s?date',
    'date\\s?de\\s?(?:la\\s)?facture',
    'date\\s?de\\s?facturation',
    "date\\s?d'[ée]mission",
    "date\\s?de\\s?l'avoir",
    'factuurdatum',
    'beleg-?\\s?datum',
    'belegdatum',
  ]),
  label('date', 'date', 5, ['datum', 'date', 'dated', '[ée]mise?\\s?le', 'issued(?:\\s?on)?']),
  label('delivery_date', 'date', 10, [
    'liefer-?\\s?(?:und|/)?\\s?(?:leistungs)?datum',
    'leistungsdatum',
    'lieferdatum',
    'delivery\\s?date',
    'date\\s?of\\s?(?:supply|delivery|service)',
    'service\\s?date',
    'date\\s?de\\s?(?:livraison|prestation)',
    'versanddatum',
    'shipped(?:\\s?on)?',
    'ship(?:ping|ment)?\\s?date',
    'leverdatum',
    'leveringsdatum',
  ]),
  label('due_date', 'date', 10, [
    'f[äa]lligkeitsdatum',
    'f[äa]lligkeitstag',
    'f[äa]llig\\s?(?:am|bis)?',
    'zahlbar\\s?(?:bis|sp[äa]testens)(?:\\s?zum)?',
    'zahlungsziel',
    'due\\s?date',
    'payment\\s?due(?:\\s?date)?',
    'due\\s?(?:on|by)',
    'payable\\s?by',
    "date\\s?d'[ée]ch[ée]ance",
    '[ée]ch[ée]ance',
    '[àa]\\s?payer\\s?avant\\s?le',
    'vervaldatum',
    'te\\s?betalen\\s?v[óo]{1,2}r',
  ]),
  label('service_period', 'period', 10, [
    'leistungszeitraum',
    'abrechnungszeitraum',
    'rechnungszeitraum',
    'versicherungszeitraum',
    'liefer-?\\s?/?\\s?leistungszeitraum',
    'service\\s?period',
    'billing\\s?period',
    'period\\s?of\\s?service',
    'p[ée]riode(?:\\s?de\\s?(?:prestation|facturation))?',
  ]),
  label('gross_total', 'amount', 10, [
    'gesamtbetrag(?:\\s?brutto)?',
    'rechnungsbetrag',
    'rechnungssumme',
    'gutschriftsbetrag',
    'endsumme',
    'endbetrag',
    'bruttobetrag',
    'brutto(?:summe|gesamt)',
    'gesamt\\s?brutto',
    'summe\\s?brutto',
    'gesamtsumme(?:\\s?brutto)?',
    'bruttosumme',
    'rechnungsbeitrag',
    '(?:rechnungs)?summe\\s?(?:inkl\\.?|mit)\\s?(?:ust|mwst)\\.?',
    // "Betrag inkl. 19 % MwSt.", an insurer's "vierteljährlicher Beitrag inklusive 19 % Versicherungsteuer".
    '(?:\\p{L}+\\s)?(?:gesamt|rechnungs|brutto)?(?:betrag|summe|beitrag)\\s?(?:inkl\\.?|inklusive|einschl\\.?|einschlie(?:ß|ss)lich)\\s?(?:\\d{1,2}(?:,\\d{1,2})?\\s?%\\s?)?(?:ust|mwst|umsatzsteuer|mehrwertsteuer|versicherung(?:s)?steuer)\\.?',
    'total\\s?ttc',
    'montant\\s?(?:total\\s?)?ttc',
    'total\\s?amount',
    'invoice\\s?total',
    'invoice\\s?amount',
    'credit\\s?(?:note\\s?)?total',
    'grand\\s?total',
    'total\\s?\\(?gross\\)?',
    'total\\s?incl\\.?(?:uding)?\\s?vat',
    'gross\\s?(?:total|amount)',
    'totaalbedrag',
    'factuurbedrag',
    'totaal\\s?incl(?:\\.|usief)?\\s?btw',
  ]),
  label('gross_total', 'amount', 5, ['summe', 'total', 'gesamt', 'brutto', 'montant\\s?total', 'totaal']),
  label('amount_due', 'amount', 10, [
    'zahlbetrag',
    'zu\\s?zahlen(?:der\\s?betrag)?',
    'noch\\s?zu\\s?zahlen',
    'offener\\s?betrag',
    'restbetrag',
    'amount\\s?due',
    'balance\\s?due',
    'amount\\s?payable',
    'total\\s?due',
    'net\\s?[àa]\\s?payer',
    'reste\\s?[àa]\\s?payer',
    'reste\\s?d[ûu]',
    'solde\\s?d[ûu]',
    'balance(?:\\s?owing)?',
    'openstaand(?:\\s?bedrag)?',
    'nog\\s?te\\s?betalen',
    // "Te betalen vóór" is the due date: the longer label wins.
    'te\\s?betalen(?:\\s?bedrag)?',
    'montant\\s?d[ûu]',
    'montant\\s?[àa]\\s?payer',
    '[àa]\\s?payer',
  ]),
  label('net_total', 'amount', 10, [
    'nettobetrag',
    // "Rechnungssumme ohne USt." is the net: longer than the gross label it begins with.
    '(?:rechnungs)?summe\\s?ohne\\s?(?:ust|mwst)\\.?',
    'summe\\s?netto',
    'gesamt\\s?netto',
    'netto(?:summe|gesamt)',
    'netto',
    'zwischensumme(?:\\s?netto)?',
    'warenwert',
    'subtotal',
    'sub-total',
    'net\\s?(?:amount|total)',
    'total\\s?net',
    'total\\s?\\(?net\\)?',
    'total\\s?excl\\.?(?:uding)?\\s?vat',
    'total\\s?ht',
    'montant\\s?(?:total\\s?)?ht',
    'sous-total(?:\\s?ht)?',
    'subtotaal',
    'totaal\\s?excl(?:\\.|usief)?\\s?btw',
  ]),
  label('net_total', 'amount', 5, ['net']),
  label('tax_total', 'amount', 10, [
    '(?:zzgl\\.?\\s?|plus\\s?|summe\\s?|gesamt\\s?)?(?:mwst\\.?|ust\\.?|umsatzsteuer|mehrwertsteuer)',
    '(?:total\\s?|plus\\s?)?(?:vat|tax|sales\\s?tax)',
    '(?:total\\s?|montant\\s?)?tva',
    '(?:totaal\\s?)?btw(?:\\s?bedrag)?',
    'steuerbetrag',
    '(?:ust|mwst)\\.?-?\\s?betrag',
  ]),
  label('prepaid_total', 'amount', 10, [
    '(?:abzgl\\.?|abz[üu]glich|abz\\.?)?\\s?(?:erhaltene\\s?|geleistete\\s?)?(?:anzahlung|vorauszahlung|abschlagszahlung)(?:en)?',
    'bereits\\s?(?:be)?zahlt',
    'bereits\\s?gezahlt',
    '(?:less\\s?)?(?:prepayment|prepaid(?:\\s?amount)?|advance\\s?payment|deposit(?:\\s?paid)?|amount\\s?paid|paid)',
    'acompte(?:\\s?vers[ée])?',
    'd[ée]j[àa]\\s?(?:pay[ée]|r[ée]gl[ée])',
  ]),
  label('supplier_vat_id', 'vat', 10, [
    'ust\\.?-?\\s?id\\.?-?\\s?(?:nr\\.?)?',
    'ust-?idnr\\.?',
    'umsatzsteuer-?\\s?id(?:entifikationsnummer)?(?:\\.?-?nr\\.?)?',
    'vat\\s?(?:id|no\\.?|number|reg(?:istration|\\.)?\\s?(?:no\\.?|number))',
    'n°\\s?(?:de\\s?)?tva(?:\\s?intracommunautaire)?',
    'num[ée]ro\\s?(?:de\\s?)?tva(?:\\s?intracommunautaire)?',
    'tva\\s?intracommunautaire',
    'identifiant\\s?tva',
    'uid(?:-nr\\.?)?',
    'vat\\s?reg(?:istration|\\.)?',
    'tva\\s?intracom(?:\\.|munautaire)?',
    'btw-?\\s?(?:nummer|nr\\.?|id(?:entificatienummer)?)',
  ]),
  label('supplier_tax_number', 'taxno', 10, [
    'steuernummer',
    'steuer-?\\s?nr\\.?',
    'st\\.?-?\\s?nr\\.?',
    'tax\\s?(?:number|no\\.?|id)',
  ]),
  label('iban', 'iban', 10, ['iban']),
  label('bic', 'bic', 10, ['bic(?:\\s?/\\s?swift)?', 'swift(?:\\s?/\\s?bic)?(?:\\s?code)?']),
  label('payment_reference', 'text', 10, [
    'verwendungszweck',
    'zahlungsreferenz',
    'payment\\s?reference',
    'r[ée]f[ée]rence\\s?(?:de\\s?)?paiement',
    'remittance\\s?(?:information|reference)',
  ]),
  label('buyer_reference', 'text', 10, ['leitweg-?id', 'buyer\\s?reference', 'k[äa]uferreferenz']),
  label('recipient', 'none', 10, [
    'rechnungsempf[äa]nger',
    'rechnungsadresse',
    'empf[äa]nger',
    'kunde',
    'bill\\s?to',
    'invoice\\s?to',
    'sold\\s?to',
    'customer',
    'client',
    'factur[ée]\\s?[àa]',
    'destinataire',
    'klant',
    'factuuradres',
    'afnemer',
    'k[äa]ufer',
    'buyer',
    'acheteur',
    'koper',
  ]),
  label('other', 'none', 10, [
    `kunden-?\\s?${NO}`,
    `customer\\s?${NO}`,
    'customer\\s?id',
    'n°\\s?client',
    `bestell-?\\s?${NO}`,
    `auftrags-?\\s?${NO}`,
    `order\\s?${NO}`,
    'po\\s?(?:number|no\\.?)',
    'bon\\s?de\\s?commande',
    'commande',
    `lieferschein-?\\s?${NO}`,
    'delivery\\s?note',
    'bestelldatum',
    'auftragsdatum',
    'order\\s?date',
    'date\\s?de\\s?commande',
    'orderdatum',
    'besteldatum',
    // The date a letter was printed is not the invoice's.
    'druckdatum',
    'printed(?:\\s?on)?',
    'print\\s?date',
    'imprim[ée]\\s?le',
    "date\\s?d'impression",
    'afdrukdatum',
    // Sums of allowances and charges are no totals of the document.
    '(?:gesamtbetrag|summe)\\s?(?:der|aller)?\\s?(?:zu|ab)schl[äa]ge',
    '(?:sum|total)\\s?(?:of\\s?)?(?:allowances|charges|discounts)',
    'total\\s?(?:des\\s?)?(?:remises|frais)',
    // The seller's caption: what follows is the supplier, not a value.
    'verk[äa]ufer',
    'seller',
    'vendeur',
    'verkoper',
    'ihre\\s?(?:ust-?id(?:nr)?\\.?|ust\\.?-?id\\.?-?nr\\.?|umsatzsteuer-id|referenz|zeichen)',
    'your\\s?(?:vat\\s?(?:id|no\\.?|number)|reference)',
    '(?:customer|buyer|client)\\s?vat(?:\\s?(?:id|no\\.?))?',
    'kunden-?\\s?ust-?id(?:nr)?\\.?',
    'tva\\s?client',
    'n°\\s?tva\\s?client',
    'seite',
    'page',
    'tel(?:efon|\\.)?',
    'phone',
    't[ée]l[ée]phone',
    'fax',
    'e-?mail',
    'web',
    'www',
    'bank',
    'banque',
    'kontoinhaber',
    'account\\s?(?:holder|name)',
    'titulaire',
    'gesch[äa]ftsf[üu]hr(?:er|ung)',
    'managing\\s?director',
    'handelsregister',
    'amtsgericht',
    'registergericht',
    'hrb',
    'siret',
    'siren',
    'rcs',
    'company\\s?(?:no\\.?|number)',
    'registered',
    'ansprechpartner',
    'contact',
    'bearbeiter',
    'zahlungsbedingungen',
    'payment\\s?terms',
    'conditions\\s?de\\s?paiement',
  ]),
];

/** Words of a line-item table's header: a line with two of them is a header, not key-value. */
export const COLUMN_WORDS =
  /^(?:pos\.?|position|nr\.?|menge|anzahl|anz\.?|qty|quantity|einheit|unit|me|beschreibung|description|bezeichnung|artikel|leistung|item|einzelpreis|e-?preis|preis|unit\s?price|price|rate|quantit[ée]|qt[ée]|d[ée]signation|prix(?:\s?unitaire)?(?:\s?ht)?|pu\s?ht|unit[ée]|libell[ée])$/iu;

export interface LabelMatch {
  label: Label;
  /** Length of the label text in the segment. */
  length: number;
  /** What follows the label in the same segment. */
  rest: string;
}

/**
 * Some producers' text layers split words where a letter's advance is off ("Br uttosumme",
 * "Zahlbetr ag"): the text without blanks between a letter and a lower-case letter, and for
 * each of its characters the index it had in `text` (one more at the end).
 */
export function closeSplitWords(text: string): { text: string; at: number[] } {
  let out = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ' ' && /\p{L}/u.test(text[i - 1] ?? '') && /\p{Ll}/u.test(text[i + 1] ?? '')) continue;
    out += text[i];
    at.push(i);
  }
  at.push(text.length);
  return { text: out, at };
}

function bestLabel(text: string, restOf: (end: number) => string): LabelMatch | undefined {
  let best: LabelMatch | undefined;
  for (const l of LABELS) {
    const m = l.re.exec(text);
    if (!m) continue;
    const length = m[0].trimEnd().replace(/[:#]$/, '').length;
    if (!best || length > best.length || (length === best.length && l.rank > best.label.rank))
      best = { label: l, length, rest: restOf(m[0].length) };
  }
  return best;
}

/**
 * The most specific label that begins `text`, if any: the longest match, then the rank. A
 * label read only once split words are closed up counts when it is longer than any read as
 * printed ("Br uttosumme" is "Bruttosumme"; "Summe netto" stays what it says).
 */
export function matchLabel(printed: string): LabelMatch | undefined {
  // OCR reads a speck before a word as a quote or a stop ("‘Datum").
  const text = printed.replace(/^[‘’'"`´,.]+(?=\p{L})/u, '');
  const asPrinted = bestLabel(text, (end) => text.slice(end).trim());
  const closed = closeSplitWords(text);
  if (closed.text === text) return asPrinted;
  const joined = bestLabel(closed.text, (end) => text.slice(closed.at[end]).trim());
  return joined && (!asPrinted || joined.length > asPrinted.length) ? joined : asPrinted;
}
