import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldsFromLayout } from '../../src/modules/incoming-invoices/layout/fields.js';
import { readValue } from '../../src/modules/incoming-invoices/layout/read.js';
import { findAmounts } from '../../src/modules/incoming-invoices/layout/values.js';
import { page } from './layout-helpers.js';

/**
 * Layouts of other producers that the reader got wrong (corpus/invoices-dev and the test
 * suite drawn by eval/foreign.ts): one case per fix, the page reduced to what shows it.
 */
type Runs = [number, number, string][];

interface Case {
  name: string;
  runs: Runs;
  expect: Record<string, unknown>;
  absent?: string[];
  /** Fields that must not be reported with confidence ≥ 0.9. */
  unsure?: string[];
  /** Fields that must be reported with confidence ≥ 0.9 (a check proved them). */
  sure?: string[];
  /** Runs set in 15 pt, as a headline. */
  headline?: Runs;
  /** Words as OCR gives them (with a confidence), read with provenance `ocr`. */
  ocr?: boolean;
}

const cases: Case[] = [
  {
    name: 'a headline "Handelsrechnung Nr. 471102 vom 05.03.2018" names number and date',
    runs: [
      [50, 60, 'Handelsrechnung Nr. 471102 vom 05.03.2018'],
      [50, 90, 'Lieferant GmbH'],
    ],
    expect: { invoice_number: '471102', date: '2018-03-05', document_type: 'Invoice' },
  },
  {
    name: 'a title naming its issuer before the number, its date carried onto the next line',
    runs: [
      [50, 168, 'Anwendungsempfehlung : urn:cen.eu:en16931:2017'],
      [50, 191, 'Rechnungswährung : EUR'],
    ],
    headline: [
      [50, 99, 'Rechnung des Versicherers Nr. 01.234.567.8-2018-1 vom'],
      [50, 116, '06.12.2018'],
    ],
    expect: { invoice_number: '01.234.567.8-2018-1', date: '2018-12-06' },
  },
  {
    name: 'a title naming the insured object before "Nr." names a contract, not the invoice',
    runs: [[50, 200, 'Sehr geehrter Herr Mustermann,']],
    headline: [[50, 99, 'Rechnung zur Kraftfahrtversicherung Nr. 00.123.456.7 vom 11.03.2014']],
    expect: {},
    absent: ['invoice_number'],
  },
  {
    name: 'a Dutch headline "FACTUUR Nummer 123 van 3 november 2026"',
    runs: [[50, 60, 'FACTUUR Nummer 123 van 3 november 2026']],
    expect: { invoice_number: '123', date: '2026-11-03' },
  },
  {
    name: '"Beleg-Datum" is the document date; a bare "Nummer" names the number',
    runs: [
      [340, 100, 'Nummer'],
      [450, 100, 'K-77'],
      [340, 113, 'Beleg-Datum'],
      [450, 113, ': 16.09.2013'],
    ],
    expect: { invoice_number: 'K-77', date: '2013-09-16' },
  },
  {
    name: 'captions printed under their values in a row are read upwards',
    runs: [
      [50, 200, 'R-2026-17'],
      [160, 200, '20-10-2015'],
      [50, 212, 'Invoice number'],
      [160, 212, 'Invoice date'],
    ],
    expect: { invoice_number: 'R-2026-17', date: '2015-10-20' },
    unsure: ['invoice_number', 'date'],
  },
  {
    name: '"Rechnungssumme ohne USt." is the net, "Bruttosumme" the gross, "Steuerbetrag" the tax',
    runs: [
      [300, 500, 'Rechnungssumme ohne USt.'],
      [480, 500, '624,90'],
      [300, 513, 'Steuerbetrag'],
      [480, 513, '46,25'],
      [300, 526, 'Bruttosumme'],
      [480, 526, '671,15'],
    ],
    expect: { net_total: '624.90', tax_total: '46.25', gross_total: '671.15' },
  },
  {
    name: '"Beitrag inklusive 19 % Versicherungsteuer" is the gross, unconfirmed without a net',
    runs: [
      [71, 520, 'Vollkasko SF25 (30 %) Typkl. 21 Regio R4'],
      [470, 520, '140,00 €'],
      [71, 532, 'vierteljährlicher Beitrag inklusive 19 % Versicherungsteuer'],
      [470, 532, '220,00 €'],
    ],
    expect: { gross_total: '220.00' },
    unsure: ['gross_total'],
  },
  {
    name: 'OCR: cents set apart after the decimal comma ("-233, 47 €") belong to the amount',
    ocr: true,
    runs: [
      [380, 700, 'Total HT'],
      [470, 700, '-218,48 €'],
      [380, 712, 'Total taxes'],
      [470, 712, '-14,99 €'],
      [380, 724, 'Total TTC'],
      [470, 724, '-233, 47 €'],
    ],
    expect: { gross_total: '233.47', net_total: '218.48' },
  },
  {
    name: 'OCR: a speck read as "~" between a caption and its number is passed over',
    ocr: true,
    runs: [
      [300, 100, 'Rechnungsnummer: ~ 2026/286'],
      [340, 113, 'Datum:'],
      [400, 113, '27.11.2026'],
    ],
    expect: { invoice_number: '2026/286', date: '2026-11-27' },
    unsure: ['invoice_number'],
  },
  {
    name: 'a totals table with a row per rate: the sum row under the headers is the total',
    runs: [
      [300, 700, 'Nettobetrag'],
      [380, 700, 'MwSt-Betrag'],
      [460, 700, 'Endbetrag'],
      [300, 710, '-4,85'],
      [380, 710, '-0,92'],
      [460, 710, '-5,77'],
      [300, 719, '-2,82'],
      [380, 719, '-0,20'],
      [460, 719, '-3,02'],
      [300, 737, '-7,67'],
      [380, 737, '-1,12'],
      [460, 737, '-8,79'],
    ],
    expect: { net_total: '7.67', tax_total: '1.12', gross_total: '8.79', document_type: 'Credit' },
  },
  {
    name: 'the sum row is found past a speck between the rows and a wider gap above it (a scan)',
    runs: [
      [300, 700, 'Nettobetrag'],
      [380, 700, 'MwSt-Betrag'],
      [460, 700, 'Endbetrag'],
      [300, 711, '-4,85'],
      [380, 711, '-0,92'],
      [460, 711, '=5,77'],
      [340, 717, ':'],
      [300, 723, '2,82'],
      [380, 723, '-0,20'],
      [460, 723, '-3,02'],
      [300, 749, '-7,67'],
      [380, 749, '-1,12'],
      [460, 749, '-8,79'],
    ],
    expect: { net_total: '7.67', tax_total: '1.12', gross_total: '8.79' },
  },
  {
    name: '"Reste dû" is the amount due: the gross is not reported as due with confidence',
    runs: [
      [300, 500, 'Net à payer TTC'],
      [450, 500, '804,86'],
      [300, 513, 'Reste dû'],
      [450, 513, '225,14'],
    ],
    expect: { amount_due: '225.14' },
    unsure: ['amount_due'],
  },
  {
    name: "the VAT id in the buyer's block after \"Kunde:\" is not the supplier's; the letterhead's is",
    runs: [
      [50, 40, 'Lieferant GmbH'],
      [50, 72, 'USt-IdNr. DE123456789'],
      [50, 110, 'Kunde:'],
      [50, 122, 'Musterkunde AG'],
      [50, 146, 'USt-IdNr. DE811569869'],
    ],
    expect: { supplier_vat_id: 'DE123456789' },
  },
  {
    name: 'words a producer split ("Br uttosumme", "Zahlbetr ag") are read as their labels',
    runs: [
      [300, 500, 'Rechnungssumme ohne USt.'],
      [520, 500, '624,90'],
      [300, 513, 'Steuerbetrag'],
      [520, 513, '46,25'],
      [300, 526, 'Br uttosumme'],
      [520, 526, '671,15'],
      [300, 539, 'Erhaltene Anzahlungen'],
      [520, 539, '-201,00'],
      [300, 552, 'Zahlbetr ag'],
      [520, 552, '470,15'],
    ],
    expect: { gross_total: '671.15', prepaid_total: '201.00', amount_due: '470.15' },
  },
  {
    name: '"Gesamtbetrag der Zuschläge" is a sum of charges, not the gross',
    runs: [
      [300, 500, 'Positionssumme'],
      [520, 500, '198,00'],
      [300, 513, 'Gesamtbetrag der Zuschläge'],
      [520, 513, '0,00'],
      [300, 526, 'Gesamtbetrag der Abschläge'],
      [520, 526, '-0,00'],
      [300, 539, 'Rechnungssumme ohne USt.'],
      [520, 539, '198,00'],
      [300, 552, 'Steuerbetrag'],
      [520, 552, '37,62'],
      [300, 565, 'Br uttosumme'],
      [520, 565, '235,62'],
    ],
    expect: { net_total: '198.00', tax_total: '37.62', gross_total: '235.62' },
  },
  {
    name: 'number and date named in a headline after other words ("… KEINE Rechnung Nr. 471102 vom …")',
    runs: [
      [44, 201, 'Währung : EUR'],
      [44, 225, 'Liefer- und Leistungsdatum : 12.11.2019'],
    ],
    headline: [[44, 139, 'Buchungshilfe - KEINE Rechnung Nr. 471102 vom 13.11.2019']],
    expect: { invoice_number: '471102', date: '2019-11-13' },
  },
  {
    name: "a credit note's headline naming the invoice it corrects gives neither number nor date",
    runs: [
      [50, 200, 'Datum: 20.11.2019'],
      [50, 213, 'Währung: EUR'],
    ],
    headline: [[44, 139, 'Korrektur zu Rechnung Nr. 471102 vom 13.11.2019']],
    expect: { date: '2019-11-20' },
    absent: ['invoice_number'],
  },
  {
    name: '"Rechnung # RE-20151008/504 von 08.10.2015" names number and date',
    runs: [[57, 353, 'Rechnung # RE-20151008/504 von 08.10.2015']],
    expect: { invoice_number: 'RE-20151008/504', date: '2015-10-08' },
  },
  {
    name: 'a row of Dutch captions above their values (Datum, Leverdatum, Orderdatum, Vervaldatum, Factuurnr.)',
    runs: [
      [50, 217, 'Datum'],
      [150, 217, 'Leverdatum'],
      [250, 217, 'Orderdatum'],
      [350, 217, 'Vervaldatum'],
      [450, 217, 'Factuurnr.'],
      [50, 228, '20 augustus 2019'],
      [150, 228, '16 augustus 2019'],
      [250, 228, '10 augustus 2019'],
      [350, 228, '29 augustus 2019'],
      [450, 228, '1234567'],
    ],
    expect: {
      date: '2019-08-20',
      delivery_date: '2019-08-16',
      due_date: '2019-08-29',
      invoice_number: '1234567',
    },
  },
  {
    name: 'the day of a written-out date in the next cell is no invoice number ("19 February 2016")',
    runs: [
      [50, 217, 'Shipped'],
      [150, 217, 'Invoice number'],
      [250, 217, 'Order date'],
      [350, 217, 'Dated'],
      [50, 228, '1 March 2016'],
      [150, 228, 'Rechnungsnummer'],
      [250, 228, '19 February 2016'],
      [350, 228, '2 March 2016'],
    ],
    expect: { date: '2016-03-02', delivery_date: '2016-03-01' },
    absent: ['invoice_number'],
  },
  {
    name: '"Reference" names the number; "Net", "Sales tax", "Invoice amount" add up; "Printed" is no date',
    runs: [
      [400, 19, 'Printed: December 16 , 2017'],
      [50, 216, 'Payment due:'],
      [160, 216, 'January 10 , 2018'],
      [50, 229, 'Shipped:'],
      [160, 229, 'December 10 , 2017'],
      [50, 242, 'Reference:'],
      [160, 242, '0000123456'],
      [50, 255, 'Dated:'],
      [160, 255, 'December 11 , 2017'],
      [50, 383, 'Net'],
      [170, 383, '8.980,00 EUR'],
      [50, 396, 'Sales tax 19 %'],
      [170, 396, '1.706,20 EUR'],
      [50, 409, 'Invoice amount'],
      [170, 409, '10.686,20 EUR'],
    ],
    expect: {
      invoice_number: '0000123456',
      date: '2017-12-11',
      delivery_date: '2017-12-10',
      due_date: '2018-01-10',
      net_total: '8980.00',
      gross_total: '10686.20',
    },
  },
  {
    name: 'Dutch "Te betalen" is the amount due; a zero invoice adds up to zero',
    runs: [
      [330, 358, 'Subtotaal'],
      [450, 358, '0,00 EUR'],
      [330, 371, 'BTW 19 %'],
      [450, 371, '0,00 EUR'],
      [330, 397, 'Te betalen'],
      [450, 397, '0,00 EUR'],
      [50, 420, 'Te betalen vóór'],
      [160, 420, '13-05-2018'],
    ],
    expect: { gross_total: '0.00', amount_due: '0.00', due_date: '2018-05-13' },
  },
  {
    name: '"Käufer :" marks the buyer\'s block: its VAT id is not the supplier\'s',
    runs: [
      [44, 305, 'Ver käufer :'],
      [44, 327, 'Lieferant GmbH'],
      [44, 383, 'USt.-Id.-Nr. : DE123456789'],
      [44, 406, 'Käufer :'],
      [44, 428, 'Kunden AG Mitte'],
      [44, 450, 'USt.-Id.-Nr. : DE811569869'],
    ],
    expect: { supplier_vat_id: 'DE123456789' },
  },
  {
    name: "a letter's date beside its headline; dates inside sentences are not the invoice's",
    runs: [
      [71, 290, 'Sachversicherungsvertrag Nr: 00.123.456.7'],
      [460, 290, '18. April 2014'],
      [71, 336, 'zu Ihrer Wohngebäudeversicherung berechnen wir Ihnen für den Zeitraum vom'],
      [71, 348, '21.05.2014 bis'],
      [71, 359, '21.05.2015 nachstehenden Beitrag:'],
      [71, 382, 'Vertragsänderungen) bis zum 04.03.2014 berücksichtigt. Lösen Sie die Rechnung'],
    ],
    expect: { date: '2014-04-18' },
    unsure: ['date'],
  },
  {
    name: '"Rechnungszeitraum" is the service period, "Fälligkeitstag" the due date',
    runs: [
      [71, 325, 'Beitragsrechnung zur Kraftfahrtversicherung'],
      [460, 325, '11. März 2014'],
      [71, 336, 'Rechnungszeitraum: 01.04.2014 - 30.06.2014'],
      [71, 348, 'Fälligkeitstag: 01.04.2014'],
    ],
    expect: {
      date: '2014-03-11',
      due_date: '2014-04-01',
      service_period_start: '2014-04-01',
      service_period_end: '2014-06-30',
    },
  },
  {
    name: 'OCR: a colon set apart or misread ("Beleg-Nr | : | RK…", "Beleg-Datum | 3 | 16,09,2013")',
    ocr: true,
    runs: [
      [366, 81, 'Beleg-Nr'],
      [440, 81, ':'],
      [457, 81, 'RK21012345'],
      [366, 94, 'Beleg-Datum'],
      [440, 94, '3'],
      [457, 94, '16,09,2013'],
    ],
    expect: { invoice_number: 'RK21012345', date: '2013-09-16' },
    unsure: ['invoice_number', 'date'],
  },
  {
    name: "OCR: a headline's number set apart from its label, its date split after the comma",
    ocr: true,
    runs: [
      [50, 200, 'INVOICE No.'],
      [150, 200, '123456XX of Apr 4,'],
      [260, 200, '2016'],
    ],
    expect: { invoice_number: '123456XX', date: '2016-04-04' },
  },
  {
    name: 'OCR: a title\'s number set apart ("Handelsrechnung Nr. | 471102 vom 05.03.2018")',
    ocr: true,
    runs: [
      [50, 99, 'Handelsrechnung Nr.'],
      [240, 99, '471102 vom 05.03.2018'],
    ],
    expect: { invoice_number: '471102', date: '2018-03-05' },
  },
  {
    name: 'OCR: a date split under its caption ("30 | juin 2016")',
    ocr: true,
    runs: [
      [50, 200, 'Date de commande'],
      [150, 200, 'Facture n°'],
      [250, 200, 'Date de facturation'],
      [50, 212, '8'],
      [62, 212, 'juin 2016'],
      [150, 212, 'R1234567'],
      [250, 212, '30'],
      [268, 212, 'juin 2016'],
    ],
    expect: { invoice_number: 'R1234567', date: '2016-06-30' },
  },
  {
    name: 'OCR: a speck read before a caption ("‘Datum") leaves it a caption',
    ocr: true,
    runs: [
      [50, 300, '18 januari 2016'],
      [150, 300, '1 februari 2016'],
      [50, 312, '‘Datum'],
      [150, 312, 'Vervaldatum'],
    ],
    expect: { date: '2016-01-18', due_date: '2016-02-01' },
  },
  {
    name: 'OCR: captions under values set larger stand further from them',
    ocr: true,
    runs: [
      [50, 200, '4 avril 2016'],
      [150, 200, '29 mars 2016'],
      [250, 200, '123456XX'],
      [50, 224, 'Date'],
      [150, 224, 'Date de commande'],
      [250, 224, 'Facture n°'],
    ],
    expect: { invoice_number: '123456XX', date: '2016-04-04' },
  },
  {
    name: 'OCR: "11. Marz 2014" without its umlaut is the letter date; a lone date on the left is not',
    ocr: true,
    runs: [
      [71, 325, 'Beitragsrechnung zur Kraftfahrtversicherung'],
      [460, 325, '11. Marz 2014'],
      [71, 336, '01.04.2014'],
      [233, 336, '30.06.2014'],
    ],
    expect: { date: '2014-03-11' },
  },
  {
    name: "the name under the seller's caption is the supplier, closed up as the caption was",
    runs: [
      [44, 282, 'Ver käufer :'],
      [44, 305, 'Liefer ant GmbH'],
      [44, 327, 'Lieferantenstraße 20'],
      [44, 338, 'DE 80333 München'],
      [44, 383, 'Käufer :'],
      [44, 406, 'Kunden AG Mitte'],
    ],
    expect: { supplier_name: 'Lieferant GmbH' },
    unsure: ['supplier_name'],
  },
  {
    name: 'a letterhead without a legal form: the largest name at the top, reported as a guess',
    runs: [
      [50, 110, 'Bill to:'],
      [50, 122, 'Musterkunde AG'],
      [50, 134, 'Hauptstraße 5, 10115 Berlin'],
    ],
    headline: [
      [300, 38, 'Nordlicht Hosting'],
      [50, 190, 'Invoice'],
    ],
    expect: { supplier_name: 'Nordlicht Hosting' },
    unsure: ['supplier_name'],
  },
  {
    name: 'under "Lieferant" beside "Käufer": the name in capitals is the supplier, not the buyer',
    runs: [
      [40, 63, 'Lieferant'],
      [210, 63, 'Käufer'],
      [40, 81, 'MUSTERLIEFERANT GMBH'],
      [210, 81, 'MUSTER-KUNDE GMBH'],
    ],
    expect: { supplier_name: 'MUSTERLIEFERANT GMBH' },
  },
  {
    name: 'Dutch "Klant:" marks the buyer\'s block, "BTW-nummer" labels the supplier\'s VAT id',
    runs: [
      [50, 110, 'Klant:'],
      [50, 146, 'BTW-nummer DE811569869'],
      [50, 800, 'Lieferant GmbH · BTW-nummer DE123456789'],
    ],
    expect: { supplier_vat_id: 'DE123456789' },
  },
  ...[false, true].map(
    (ocr): Case => ({
      name: `a gross caption wrapped in its narrow cell ("Gesamtbet" over "rag") under a table with a "Gesamt" column${ocr ? ', from OCR' : ''}`,
      runs: [
        [50, 185, 'Rechnungsnummer:'],
        [190, 185, 'RE-2026-0815'],
        [50, 259, 'Pos.'],
        [90, 259, 'Bezeichnung'],
        [355, 259, 'Menge'],
        [402, 259, 'Einzelpreis'],
        [510, 259, 'Gesamt'],
        [50, 283, '1'],
        [90, 283, 'Flyer A5, 4/4-farbig'],
        [362, 283, '2.000'],
        [439, 283, '0,35'],
        [516, 283, '700,00'],
        [50, 303, '2'],
        [90, 303, 'Plakate A1'],
        [378, 303, '12'],
        [432, 303, '25,00'],
        [516, 303, '300,00'],
        [403, 351, 'Nettobetrag'],
        [507, 351, '1.000,00'],
        [411, 369, 'USt. 19 %'],
        [516, 369, '190,00'],
        [403, 387, 'Gesamtbet'],
        [507, 387, '1.190,00'],
        [433, 400, 'rag'],
      ],
      expect: { gross_total: '1190.00', net_total: '1000.00', tax_total: '190.00' },
      sure: ['gross_total'],
      ocr,
    }),
  ),
  // The amount due is sure only when read from its own caption and confirmed by a gross of its
  // own caption; where the document deducts a prepayment or deposit, due ≠ gross (test suite
  // 05.01a, 03.01a, 03.04a drawn by eval/foreign.ts, dev part).
  ...[false, true].flatMap((ocr): Case[] => {
    const via = ocr ? ', from OCR' : '';
    const en: Runs = [
      [330, 500, 'Net'],
      [450, 500, '283.11'],
      [330, 513, 'Sales tax 19 %'],
      [450, 513, '53.79'],
      [330, 526, 'Total due'],
      [450, 526, '336.90'],
    ];
    const nl: Runs = [
      [330, 500, 'Subtotaal'],
      [450, 500, '676,35'],
      [330, 513, 'BTW 19 %'],
      [450, 513, '128,51'],
      [330, 526, 'Te betalen'],
      [450, 526, '804,86'],
    ];
    return [
      {
        name: `"Total due" as the only total is the gross, not a sure amount due (a "Balance" row may be missed)${via}`,
        runs: en,
        expect: { gross_total: '336.90' },
        sure: ['gross_total'],
        unsure: ['amount_due'],
        ocr,
      },
      {
        name: `"Balance" under "Total due" is the amount due, unsure without a printed prepayment${via}`,
        runs: [...en, [330, 539, 'Balance'], [450, 539, '366.86']],
        expect: { gross_total: '336.90', amount_due: '366.86' },
        sure: ['gross_total'],
        unsure: ['amount_due'],
        ocr,
      },
      {
        name: `Dutch "Te betalen" as the only total: the gross, its due unsure${via}`,
        runs: nl,
        expect: { gross_total: '804.86' },
        sure: ['gross_total'],
        unsure: ['amount_due'],
        ocr,
      },
      {
        name: `Dutch "Openstaand" after "Te betalen" is the amount due, unsure${via}`,
        runs: [...nl, [330, 539, 'Openstaand'], [450, 539, '225,14']],
        expect: { gross_total: '804.86', amount_due: '225.14' },
        sure: ['gross_total'],
        unsure: ['amount_due'],
        ocr,
      },
    ];
  }),
  {
    name: '"Zu zahlen" below a "Gesamtsumme" it differs from (a deposit not printed) is unsure',
    runs: [
      [330, 500, 'Summe netto'],
      [450, 500, '35.156,82'],
      [330, 513, 'zzgl. USt 19 %'],
      [450, 513, '6.679,80'],
      [330, 526, 'Gesamtsumme'],
      [450, 526, '41.836,62'],
      [330, 539, 'Zu zahlen'],
      [450, 539, '1.997,62'],
    ],
    expect: { gross_total: '41836.62', amount_due: '1997.62' },
    sure: ['gross_total'],
    unsure: ['amount_due'],
  },
  {
    name: 'two different figures under due captions: the one equal to the gross is no sure due',
    runs: [
      [330, 500, 'Summe netto'],
      [450, 500, '1.000,00'],
      [330, 513, 'zzgl. USt 19 %'],
      [450, 513, '190,00'],
      [330, 526, 'Rechnungsbetrag'],
      [450, 526, '1.190,00'],
      [330, 539, 'Offener Betrag'],
      [450, 539, '690,00'],
      [330, 552, 'Zahlbetrag'],
      [450, 552, '1.190,00'],
    ],
    expect: { gross_total: '1190.00' },
    sure: ['gross_total'],
    unsure: ['amount_due'],
  },
  {
    name: 'a "Zu zahlen" under its own caption, equal to a gross under its own, is a sure due',
    runs: [
      [330, 500, 'Summe netto'],
      [450, 500, '1.000,00'],
      [330, 513, 'zzgl. USt 19 %'],
      [450, 513, '190,00'],
      [330, 526, 'Summe brutto'],
      [450, 526, '1.190,00'],
      [330, 539, 'Zu zahlen'],
      [450, 539, '1.190,00'],
    ],
    expect: { gross_total: '1190.00', amount_due: '1190.00' },
    sure: ['gross_total', 'amount_due'],
  },
  {
    name: 'OCR set a written-out date apart beside its caption ("June 16 | 2016", Courier)',
    runs: [
      [50, 300, 'Invoice date:'],
      [160, 300, 'June 16'],
      [240, 300, '2016'],
      [50, 314, 'Order date:'],
      [160, 314, 'May 29'],
      [240, 314, '2016'],
    ],
    expect: { date: '2016-06-16' },
    ocr: true,
  },
  {
    name: 'OCR set a headline\'s date apart ("FACTURE N° | 17794 du 14 | juillet 2021")',
    runs: [
      [50, 250, 'Date de commande:'],
      [160, 250, '17 juin 2021'],
    ],
    headline: [
      [50, 190, 'FACTURE N°'],
      [170, 190, '17794 du 14'],
      [300, 190, 'juillet 2021'],
    ],
    expect: { invoice_number: '17794', date: '2021-07-14' },
    ocr: true,
  },
  {
    name: 'OCR set a date over its caption apart ("18 | janvier 2016" over "Émise le")',
    runs: [
      [50, 200, '1 février 2016'],
      [200, 200, 'R123456789'],
      [350, 200, '18'],
      [380, 200, 'janvier 2016'],
      [50, 212, 'Echéance'],
      [200, 212, 'Facture n°'],
      [350, 212, 'Emise le'],
    ],
    expect: { invoice_number: 'R123456789', date: '2016-01-18', due_date: '2016-02-01' },
    ocr: true,
  },
];

describe('layout reader: other producers', () => {
  for (const c of cases)
    it(c.name, () => {
      const body = page(c.runs);
      body.words.push(...page(c.headline ?? [], 1, 15).words);
      if (c.ocr) for (const w of body.words) w.confidence = 0.9;
      const out = fieldsFromLayout([body], c.ocr ? 'ocr' : 'pdf_text');
      const fields = out.fields as Record<string, unknown>;
      for (const [field, value] of Object.entries(c.expect)) assert.deepEqual(fields[field], value, field);
      for (const field of c.absent ?? []) assert.equal(fields[field], undefined, field);
      for (const field of c.sure ?? []) {
        const v = (out.provenance as Record<string, { confidence: number; derived?: boolean }>)[field];
        assert.ok(v && v.confidence >= 0.9 && !v.derived, `${field} sure: ${JSON.stringify(v)}`);
      }
      assert.ok(!out.warnings.some((w) => w.code === 'totals_inconsistent'), JSON.stringify(out.warnings));
      for (const field of c.unsure ?? []) {
        const v = (out.provenance as Record<string, { confidence: number }>)[field]?.confidence;
        assert.ok(v === undefined || v < 0.9, `${field} unsure: ${v}`);
      }
    });

  const amounts: [string, string[]][] = [
    ['Rs 1939', ['1939.00']],
    ['₹1,939', ['1939.00']],
    ['Total: INR 12 500', ['12500.00']],
    ['EUR 1.234,56', ['1234.56']],
    // Without a currency sign a whole number is a quantity, a year or a position.
    ['Invoice 2026', []],
    ['Menge 5 Stk', []],
  ];
  for (const [text, want] of amounts)
    it(`amounts in "${text}" → ${want.join(', ') || 'none'}`, () => {
      assert.deepEqual(
        findAmounts(text).map((a) => a.value),
        want,
      );
    });

  const vat: [string, string | undefined][] = [
    ['DE123456789', 'DE123456789'],
    [': DE 123 456 789', 'DE123456789'],
    ['ATU12345678', 'ATU12345678'],
    // A valid id followed by one more digit is another number, not the id.
    ['ATU123456789', undefined],
    ['DE1234567890', undefined],
  ];
  for (const [text, want] of vat)
    it(`VAT id "${text}" → ${want ?? 'none'}`, () => {
      assert.equal(readValue('vat', text, 'de')?.value, want);
    });
});
