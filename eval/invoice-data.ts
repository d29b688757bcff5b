import { Decimal } from 'decimal.js';
import { groupIban, iban, type Rng } from './random.js';

export type Lang = 'de' | 'en' | 'fr';

/** What a generated document says: the ground truth the extractor is scored against. */
export interface Truth {
  document_type: 'Invoice' | 'Credit';
  invoice_number: string;
  date: string;
  due_date?: string;
  delivery_date?: string;
  currency: string;
  net_total: string;
  tax_total: string;
  gross_total: string;
  prepaid_total?: string;
  amount_due?: string;
  supplier_name: string;
  supplier_vat_id?: string;
  iban?: string;
}

export interface Item {
  title: string;
  quantity: number;
  unitPrice: Decimal;
  rate: string;
  net: Decimal;
}

export interface Party {
  name: string;
  street: string;
  postcode: string;
  city: string;
  country: string;
}

export interface InvoiceData {
  lang: Lang;
  credit: boolean;
  /** Credit notes printed with negative amounts. */
  negative: boolean;
  number: string;
  date: string;
  dueDate?: string;
  deliveryDate?: string;
  currency: string;
  supplier: Party;
  buyer: Party;
  vatId: string;
  buyerVatId?: string;
  taxNumber?: string;
  iban: string;
  bic: string;
  items: Item[];
  taxes: { rate: string; net: Decimal; tax: Decimal }[];
  net: Decimal;
  tax: Decimal;
  gross: Decimal;
  prepaid?: Decimal;
  due?: Decimal;
}

const SUPPLIERS: Record<Lang, [string, string, string, string][]> = {
  de: [
    ['Muster Software GmbH', 'Hauptstraße 12', '10115', 'Berlin'],
    ['Schmidt & Partner GmbH', 'Lindenallee 4', '80331', 'München'],
    ['Nordlicht Consulting AG', 'Am Hafen 7', '20457', 'Hamburg'],
    ['Becker Druck KG', 'Industriestr. 88', '50667', 'Köln'],
    ['Weber IT-Service UG', 'Bahnhofstraße 3a', '70173', 'Stuttgart'],
    ['Fischer Elektro e.K.', 'Gartenweg 15', '04109', 'Leipzig'],
  ],
  en: [
    ['Acme Widgets Ltd', '221 Baker Street', 'NW1 6XE', 'London'],
    ['Blue Harbour Consulting Ltd', '14 Queen Street', 'EH2 1JX', 'Edinburgh'],
    ['Brightside Media Limited', '8 Market Square', 'M2 5PD', 'Manchester'],
    ['Northwind Traders Ltd', '42 King Road', 'BS1 4DJ', 'Bristol'],
  ],
  fr: [
    ['Dupont Informatique SARL', '12 rue de la Paix', '75002', 'Paris'],
    ['Atelier Lumière SAS', '5 avenue Jean Jaurès', '69007', 'Lyon'],
    ['Conseil Martin SA', '18 boulevard Victor Hugo', '06000', 'Nice'],
    ['Bureau Moreau EURL', '3 place Bellecour', '69002', 'Lyon'],
  ],
};
const BUYERS: [string, string, string, string][] = [
  ['Kunde Handel GmbH', 'Marktplatz 1', '60311', 'Frankfurt am Main'],
  ['Globex Services AG', 'Seestraße 20', '01067', 'Dresden'],
  ['Initech Ltd', '1 Office Park', 'RG1 1AA', 'Reading'],
  ['Société Générale de Test SA', '29 rue du Commerce', '75015', 'Paris'],
];
const ITEMS: Record<Lang, string[]> = {
  de: [
    'Beratung',
    'Softwareentwicklung',
    'Wartungsvertrag',
    'Druckkosten',
    'Reisekosten',
    'Schulung',
    'Lizenz',
    'Hosting',
  ],
  en: [
    'Consulting',
    'Software development',
    'Maintenance',
    'Printing',
    'Travel expenses',
    'Training',
    'Licence',
    'Hosting',
  ],
  fr: [
    'Conseil',
    'Développement logiciel',
    'Maintenance',
    'Impression',
    'Frais de déplacement',
    'Formation',
    'Licence',
    'Hébergement',
  ],
};
const RATES: Record<Lang, string[]> = { de: ['19', '7'], en: ['20', '5'], fr: ['20', '10', '5.5'] };

const pad = (n: number) => String(n).padStart(2, '0');
const isoDate = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
const addDays = (iso: string, days: number) =>
  isoDate(new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86400000));

function vatId(rng: Rng, lang: Lang): string {
  if (lang === 'de') return `DE${rng.digits(9)}`;
  if (lang === 'fr') return `FR${rng.digits(2)}${rng.digits(9)}`;
  return `GB${rng.digits(9)}`;
}

function account(rng: Rng, lang: Lang): { iban: string; bic: string } {
  if (lang === 'de')
    return {
      iban: iban('DE', rng.digits(8) + rng.digits(10)),
      bic: rng.pick(['COBADEFFXXX', 'DEUTDEDBBER', 'GENODEF1M04', 'BYLADEM1001']),
    };
  if (lang === 'fr')
    return {
      iban: iban('FR', rng.digits(10) + rng.digits(11) + rng.digits(2)),
      bic: rng.pick(['BNPAFRPPXXX', 'AGRIFRPP882', 'SOGEFRPP']),
    };
  return {
    iban: iban('GB', `NWBK${rng.digits(6)}${rng.digits(8)}`),
    bic: rng.pick(['NWBKGB2L', 'BARCGB22', 'LOYDGB21']),
  };
}

export function randomInvoice(
  rng: Rng,
  lang: Lang,
  opts: { credit?: boolean; prepaid?: boolean; items?: number } = {},
): InvoiceData {
  const [name, street, postcode, city] = rng.pick(SUPPLIERS[lang]);
  const [bName, bStreet, bPostcode, bCity] = rng.pick(BUYERS);
  const year = rng.int(2024, 2027);
  const date = isoDate(new Date(Date.UTC(year, rng.int(0, 11), rng.int(1, 28))));
  const credit = opts.credit ?? false;
  const prefix = credit ? rng.pick(['GS', 'CN', 'AV']) : rng.pick(['RE', 'INV', 'F', 'R', '']);
  const number = rng.pick([
    `${prefix}${prefix ? '-' : ''}${year}-${String(rng.int(1, 9999)).padStart(4, '0')}`,
    `${prefix}${rng.digits(5)}`,
    `${year}/${rng.int(100, 999)}`,
  ]);
  const rates = RATES[lang];
  const items: Item[] = [];
  const count = opts.items ?? rng.int(1, 8);
  for (let i = 0; i < count; i++) {
    const quantity = rng.int(1, 12);
    const unitPrice = new Decimal(rng.int(500, 90000)).dividedBy(100);
    const rate = rng.chance(0.8) ? rates[0]! : rng.pick(rates);
    items.push({
      title: rng.pick(ITEMS[lang]),
      quantity,
      unitPrice,
      rate,
      net: unitPrice.times(quantity).toDecimalPlaces(2),
    });
  }
  const byRate = new Map<string, Decimal>();
  for (const it of items) byRate.set(it.rate, (byRate.get(it.rate) ?? new Decimal(0)).plus(it.net));
  const taxes = [...byRate.entries()].map(([rate, net]) => ({
    rate,
    net,
    tax: net.times(rate).dividedBy(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP),
  }));
  const net = taxes.reduce((s, t) => s.plus(t.net), new Decimal(0));
  const tax = taxes.reduce((s, t) => s.plus(t.tax), new Decimal(0));
  const gross = net.plus(tax);
  const prepaid = opts.prepaid ? gross.times(rng.pick([0.3, 0.5, 0.25])).toDecimalPlaces(2) : undefined;
  const { iban: accountIban, bic } = account(rng, lang);
  return {
    lang,
    credit,
    negative: credit && rng.chance(0.5),
    number,
    date,
    dueDate: rng.chance(0.7) ? addDays(date, rng.pick([14, 30])) : undefined,
    deliveryDate: rng.chance(0.6) ? addDays(date, -rng.int(1, 20)) : undefined,
    currency: lang === 'en' ? 'GBP' : 'EUR',
    supplier: { name, street, postcode, city, country: lang === 'de' ? 'DE' : lang === 'fr' ? 'FR' : 'GB' },
    buyer: { name: bName, street: bStreet, postcode: bPostcode, city: bCity, country: 'DE' },
    vatId: vatId(rng, lang),
    buyerVatId: rng.chance(0.4) ? `DE${rng.digits(9)}` : undefined,
    taxNumber:
      lang === 'de' && rng.chance(0.5) ? `${rng.digits(2)}/${rng.digits(3)}/${rng.digits(5)}` : undefined,
    iban: accountIban,
    bic,
    items,
    taxes,
    net,
    tax,
    gross,
    prepaid,
    due: prepaid ? gross.minus(prepaid) : undefined,
  };
}

export function truthOf(d: InvoiceData): Truth {
  return {
    document_type: d.credit ? 'Credit' : 'Invoice',
    invoice_number: d.number,
    date: d.date,
    ...(d.dueDate ? { due_date: d.dueDate } : {}),
    ...(d.deliveryDate ? { delivery_date: d.deliveryDate } : {}),
    currency: d.currency,
    net_total: d.net.toFixed(2),
    tax_total: d.tax.toFixed(2),
    gross_total: d.gross.toFixed(2),
    ...(d.prepaid ? { prepaid_total: d.prepaid.toFixed(2), amount_due: d.due!.toFixed(2) } : {}),
    supplier_name: d.supplier.name,
    supplier_vat_id: d.vatId,
    iban: d.iban,
  };
}

export { groupIban };
