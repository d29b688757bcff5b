import { ACCOUNT_KEYS, LIMITS } from '../../modules/account/profile.public.js';
import { addMessages } from '../i18n.js';

/** One input of the company profile form; `name` is the API's field (number formats dotted). */
export interface ProfileField {
  name: string;
  group: string;
  kind: 'text' | 'email' | 'tel' | 'textarea' | 'number' | 'checkbox' | 'country' | 'select';
  /** The values of a select (labels: `profile.option.<value>`). */
  options?: readonly string[];
  max?: number;
  autocomplete?: string;
  /** Spans the whole row of the form. */
  full?: boolean;
  /** Has a hint text (`profile.hint.<name>`). */
  hint?: boolean;
  required?: boolean;
}

export const PROFILE_GROUPS = [
  'company',
  'tax',
  'contact',
  'bank',
  'invoices',
  'numbers',
  'accounting',
] as const;

export const PROFILE_FIELDS: ProfileField[] = [
  {
    name: 'name',
    group: 'company',
    kind: 'text',
    max: LIMITS.name,
    autocomplete: 'organization',
    full: true,
    required: true,
  },
  {
    name: 'street',
    group: 'company',
    kind: 'text',
    max: LIMITS.street,
    autocomplete: 'street-address',
    full: true,
  },
  { name: 'zip', group: 'company', kind: 'text', max: LIMITS.zip, autocomplete: 'postal-code' },
  { name: 'city', group: 'company', kind: 'text', max: LIMITS.city, autocomplete: 'address-level2' },
  { name: 'country_code', group: 'company', kind: 'country' },
  { name: 'vat_id', group: 'tax', kind: 'text', max: LIMITS.vat_id, hint: true },
  { name: 'tax_number', group: 'tax', kind: 'text', max: LIMITS.tax_number },
  { name: 'contact_name', group: 'contact', kind: 'text', max: LIMITS.contact_name, autocomplete: 'name' },
  { name: 'email', group: 'contact', kind: 'email', max: LIMITS.email, autocomplete: 'email' },
  { name: 'phone', group: 'contact', kind: 'tel', max: LIMITS.phone, autocomplete: 'tel' },
  { name: 'iban', group: 'bank', kind: 'text', max: LIMITS.iban, hint: true },
  { name: 'bic', group: 'bank', kind: 'text', max: LIMITS.bic },
  { name: 'bank_name', group: 'bank', kind: 'text', max: LIMITS.bank_name },
  {
    name: 'invoice_intro_text',
    group: 'invoices',
    kind: 'textarea',
    max: LIMITS.invoice_intro_text,
    full: true,
    hint: true,
  },
  {
    name: 'invoice_closing_text',
    group: 'invoices',
    kind: 'textarea',
    max: LIMITS.invoice_closing_text,
    full: true,
  },
  { name: 'payment_term_days', group: 'invoices', kind: 'number', hint: true },
  { name: 'payment_terms_text', group: 'invoices', kind: 'text', max: LIMITS.payment_terms_text, hint: true },
  // The last step of the rate order of billed time (issue 37); money, two decimals.
  { name: 'default_hourly_rate', group: 'invoices', kind: 'text', max: 12, hint: true },
  { name: 'service_date_defaults_to_invoice_date', group: 'invoices', kind: 'checkbox', full: true },
  { name: 'number_formats.invoice', group: 'numbers', kind: 'text', max: LIMITS.number_format, hint: true },
  { name: 'number_formats.credit', group: 'numbers', kind: 'text', max: LIMITS.number_format },
  // The DATEV export and VAT settings (issue 41); accounts left empty follow the chart.
  { name: 'accounting.datev_consultant_number', group: 'accounting', kind: 'number', max: 7, hint: true },
  { name: 'accounting.datev_client_number', group: 'accounting', kind: 'number', max: 5 },
  { name: 'accounting.fiscal_year_start_month', group: 'accounting', kind: 'number', max: 2 },
  { name: 'accounting.account_length', group: 'accounting', kind: 'number', max: 1 },
  { name: 'accounting.chart', group: 'accounting', kind: 'select', options: ['SKR03', 'SKR04'] },
  { name: 'accounting.vat_method', group: 'accounting', kind: 'select', options: ['accrual', 'cash'] },
  ...ACCOUNT_KEYS.map(
    (k): ProfileField => ({ name: `accounting.accounts.${k}`, group: 'accounting', kind: 'text', max: 9 }),
  ),
];

/** Whether a field is one of the accounting settings (numbers, selects and accounts). */
export const isAccountingField = (name: string) => name.startsWith('accounting.');

/** German field errors (the service's messages are English and say the same in more detail). */
const DE_ERRORS: Record<string, string> = {
  name: 'Bitte geben Sie den Firmennamen an (höchstens 200 Zeichen).',
  country_code: 'Kein Ländercode nach ISO 3166-1.',
  vat_id: 'Keine gültige USt-IdNr.: Länderpräfix und Format des Landes prüfen (z. B. DE123456789).',
  tax_number: 'Nur Buchstaben, Ziffern, Leerzeichen und / . - sind erlaubt.',
  email: 'Keine gültige E-Mail-Adresse.',
  phone: 'Nur Ziffern, Leerzeichen und + ( ) / . - sind erlaubt.',
  iban: 'Keine gültige IBAN: Länge oder Prüfziffern stimmen nicht.',
  bic: 'Keine gültige BIC: 8 oder 11 Zeichen (Bank, Land, Ort, optional Filiale).',
  payment_term_days: 'Bitte eine ganze Zahl von 0 bis 365 Tagen.',
  payment_terms_text: 'Nur die Platzhalter {due_date} und {days} sind möglich.',
  default_hourly_rate: 'Bitte einen Betrag ab 0 mit höchstens zwei Nachkommastellen (z. B. 95,50).',
  'number_formats.invoice':
    'Das Format braucht genau einen Zähler wie {NNNNN}; erlaubt sind {YYYY}, {YY} und {N…}.',
  'number_formats.credit':
    'Das Format braucht genau einen Zähler wie {NNNNN}; erlaubt sind {YYYY}, {YY} und {N…}.',
};

/** The message shown next to a field: the service's in English, a German one in German. */
export const fieldError = (lang: 'en' | 'de', field: string, message: string) =>
  lang === 'de' ? (DE_ERRORS[field] ?? message) : message.charAt(0).toUpperCase() + message.slice(1);

export function profileMessages(): void {
  addMessages({
    en: {
      'profile.title': 'Company profile',
      'profile.intro':
        'What every invoice prints about your company. Invoices already booked keep the details they were booked with.',
      'profile.group.company': 'Company and address',
      'profile.group.tax': 'Tax',
      'profile.group.contact': 'Contact on invoices',
      'profile.group.bank': 'Bank account',
      'profile.group.invoices': 'Invoice texts and payment terms',
      'profile.group.numbers': 'Number formats',
      'profile.field.name': 'Legal name',
      'profile.field.street': 'Street and number',
      'profile.field.zip': 'Postal code',
      'profile.field.city': 'City',
      'profile.field.country_code': 'Country',
      'profile.field.vat_id': 'VAT ID',
      'profile.field.tax_number': 'Tax number',
      'profile.field.contact_name': 'Contact person',
      'profile.field.email': 'E-mail',
      'profile.field.phone': 'Phone',
      'profile.field.iban': 'IBAN',
      'profile.field.bic': 'BIC',
      'profile.field.bank_name': 'Bank',
      'profile.field.invoice_intro_text': 'Text above the items',
      'profile.field.invoice_closing_text': 'Text below the totals',
      'profile.field.payment_term_days': 'Days to pay',
      'profile.field.payment_terms_text': 'Payment sentence',
      'profile.field.default_hourly_rate': 'Default hourly rate',
      'profile.hint.default_hourly_rate':
        'Bills time where no effort, task, team, project or user rate applies. Net, in the invoice currency.',
      'profile.field.service_date_defaults_to_invoice_date':
        'An invoice without a service period was supplied on its invoice date',
      'profile.field.number_formats.invoice': 'Invoice numbers',
      'profile.field.number_formats.credit': 'Credit note numbers',
      'profile.hint.vat_id': 'With the country prefix, e.g. DE123456789.',
      'profile.hint.iban': 'Blanks are fine; the check digits are verified.',
      'profile.hint.invoice_intro_text': 'Used when an invoice has no text of its own.',
      'profile.hint.payment_term_days': 'Used when an invoice has no terms or due date of its own.',
      'profile.hint.payment_terms_text':
        'Replaces “Payable without deduction by …”. {due_date} and {days} are filled in.',
      'profile.hint.number_formats.invoice':
        '{YYYY} or {YY} for the year (the counter restarts every year), one counter such as {NNNNN}.',
      'profile.countryNone': '— none —',
      'profile.save': 'Save profile',
      'profile.logo': 'Logo',
      'profile.logo.hint': 'PNG or JPEG, at most 256 KB. Printed at the top of invoices booked from now on.',
      'profile.logo.file': 'Logo file',
      'profile.logo.upload': 'Upload logo',
      'profile.logo.remove': 'Remove logo',
      'profile.logo.current': 'Current logo',
      'profile.logo.none': 'No logo yet.',
      'profile.logo.tooLarge': 'The file is larger than 256 KB.',
      'profile.logo.wrongType': 'The file is not a PNG or JPEG image.',
      'profile.logo.missing': 'Please choose a file.',
      'profile.group.accounting': 'Accounting and DATEV export',
      'profile.field.accounting.datev_consultant_number': 'DATEV consultant number',
      'profile.field.accounting.datev_client_number': 'DATEV client number',
      'profile.field.accounting.fiscal_year_start_month': 'Fiscal year starts in month',
      'profile.field.accounting.account_length': 'Account length',
      'profile.field.accounting.chart': 'Chart of accounts',
      'profile.field.accounting.vat_method': 'VAT method',
      'profile.field.accounting.accounts.revenue_19': 'Revenue 19 %',
      'profile.field.accounting.accounts.revenue_7': 'Revenue 7 %',
      'profile.field.accounting.accounts.revenue_tax_free': 'Tax-free revenue',
      'profile.field.accounting.accounts.revenue_reverse_charge': 'Revenue, reverse charge (EU)',
      'profile.field.accounting.accounts.revenue_intra_eu': 'Intra-EU supplies',
      'profile.field.accounting.accounts.revenue_oss': 'One-Stop-Shop sales (EU consumers)',
      'profile.field.accounting.accounts.receivables': 'Receivables',
      'profile.field.accounting.accounts.payables': 'Payables',
      'profile.field.accounting.accounts.bank': 'Bank',
      'profile.field.accounting.accounts.interest_income': 'Default interest',
      'profile.field.accounting.accounts.fee_income': 'Dunning fees',
      'profile.hint.accounting.datev_consultant_number':
        'From your tax adviser, with the client number. Empty accounts follow the chart.',
      'profile.option.SKR03': 'SKR 03',
      'profile.option.SKR04': 'SKR 04',
      'profile.option.accrual': 'Accrual (by invoice date)',
      'profile.option.cash': 'Cash (by payment date)',
    },
    de: {
      'profile.title': 'Firmenprofil',
      'profile.intro':
        'Was jede Rechnung über Ihre Firma druckt. Bereits gebuchte Rechnungen behalten die Angaben, mit denen sie gebucht wurden.',
      'profile.group.company': 'Firma und Anschrift',
      'profile.group.tax': 'Steuer',
      'profile.group.contact': 'Kontakt auf Rechnungen',
      'profile.group.bank': 'Bankverbindung',
      'profile.group.invoices': 'Rechnungstexte und Zahlungsbedingungen',
      'profile.group.numbers': 'Nummernformate',
      'profile.field.name': 'Firmenname',
      'profile.field.street': 'Straße und Hausnummer',
      'profile.field.zip': 'PLZ',
      'profile.field.city': 'Ort',
      'profile.field.country_code': 'Land',
      'profile.field.vat_id': 'USt-IdNr.',
      'profile.field.tax_number': 'Steuernummer',
      'profile.field.contact_name': 'Ansprechpartner',
      'profile.field.email': 'E-Mail',
      'profile.field.phone': 'Telefon',
      'profile.field.iban': 'IBAN',
      'profile.field.bic': 'BIC',
      'profile.field.bank_name': 'Bank',
      'profile.field.invoice_intro_text': 'Text über den Positionen',
      'profile.field.invoice_closing_text': 'Text unter den Summen',
      'profile.field.payment_term_days': 'Zahlungsziel in Tagen',
      'profile.field.payment_terms_text': 'Zahlungssatz',
      'profile.field.default_hourly_rate': 'Standard-Stundensatz',
      'profile.hint.default_hourly_rate':
        'Gilt für erfasste Zeit, wenn weder Aufwand, Aufgabe, Team, Projekt noch Benutzer einen Satz haben. Netto, in der Rechnungswährung.',
      'profile.field.service_date_defaults_to_invoice_date':
        'Eine Rechnung ohne Leistungszeitraum wurde am Rechnungsdatum geleistet',
      'profile.field.number_formats.invoice': 'Rechnungsnummern',
      'profile.field.number_formats.credit': 'Gutschriftnummern',
      'profile.hint.vat_id': 'Mit Länderpräfix, z. B. DE123456789.',
      'profile.hint.iban': 'Leerzeichen sind erlaubt; die Prüfziffern werden geprüft.',
      'profile.hint.invoice_intro_text': 'Gilt, wenn eine Rechnung keinen eigenen Text hat.',
      'profile.hint.payment_term_days': 'Gilt, wenn eine Rechnung kein eigenes Zahlungsziel hat.',
      'profile.hint.payment_terms_text':
        'Ersetzt „Zahlbar ohne Abzug bis …“. {due_date} und {days} werden eingesetzt.',
      'profile.hint.number_formats.invoice':
        '{YYYY} oder {YY} für das Jahr (der Zähler beginnt jedes Jahr neu), ein Zähler wie {NNNNN}.',
      'profile.countryNone': '— keines —',
      'profile.save': 'Profil speichern',
      'profile.logo': 'Logo',
      'profile.logo.hint':
        'PNG oder JPEG, höchstens 256 KB. Wird oben auf Rechnungen gedruckt, die ab jetzt gebucht werden.',
      'profile.logo.file': 'Logo-Datei',
      'profile.logo.upload': 'Logo hochladen',
      'profile.logo.remove': 'Logo entfernen',
      'profile.logo.current': 'Aktuelles Logo',
      'profile.logo.none': 'Noch kein Logo.',
      'profile.logo.tooLarge': 'Die Datei ist größer als 256 KB.',
      'profile.logo.wrongType': 'Die Datei ist kein PNG- oder JPEG-Bild.',
      'profile.logo.missing': 'Bitte wählen Sie eine Datei.',
      'profile.group.accounting': 'Buchhaltung und DATEV-Export',
      'profile.field.accounting.datev_consultant_number': 'DATEV-Beraternummer',
      'profile.field.accounting.datev_client_number': 'DATEV-Mandantennummer',
      'profile.field.accounting.fiscal_year_start_month': 'Wirtschaftsjahr beginnt im Monat',
      'profile.field.accounting.account_length': 'Sachkontenlänge',
      'profile.field.accounting.chart': 'Kontenrahmen',
      'profile.field.accounting.vat_method': 'Versteuerung',
      'profile.field.accounting.accounts.revenue_19': 'Erlöse 19 %',
      'profile.field.accounting.accounts.revenue_7': 'Erlöse 7 %',
      'profile.field.accounting.accounts.revenue_tax_free': 'Steuerfreie Erlöse',
      'profile.field.accounting.accounts.revenue_reverse_charge': 'Erlöse Reverse Charge (EU)',
      'profile.field.accounting.accounts.revenue_intra_eu': 'Innergemeinschaftliche Lieferungen',
      'profile.field.accounting.accounts.revenue_oss': 'One-Stop-Shop-Erlöse (EU-Verbraucher)',
      'profile.field.accounting.accounts.receivables': 'Forderungen',
      'profile.field.accounting.accounts.payables': 'Verbindlichkeiten',
      'profile.field.accounting.accounts.bank': 'Bank',
      'profile.field.accounting.accounts.interest_income': 'Verzugszinsen',
      'profile.field.accounting.accounts.fee_income': 'Mahngebühren',
      'profile.hint.accounting.datev_consultant_number':
        'Von Ihrer Steuerberatung, mit der Mandantennummer. Leere Konten folgen dem Kontenrahmen.',
      'profile.option.SKR03': 'SKR 03',
      'profile.option.SKR04': 'SKR 04',
      'profile.option.accrual': 'Soll (nach Rechnungsdatum)',
      'profile.option.cash': 'Ist (nach Zahlungsdatum)',
    },
  });
}
