/**
 * SWIFT MT940 (statement) and MT942 (interim report) as banks export them, read leniently:
 * SWIFT block wrappers, bank headers before the first tag, binary characters, fields wrapped
 * over lines (also inside `:61:`), invalid days (February 30th) and the German structured
 * `:86:` (GVC, `?00`–`?63` subfields, SEPA tags EREF+/KREF+/MREF+/CRED+/SVWZ+/ABWA+), and the
 * Dutch `/KEY/value/` form. The npm parsers tried refused most real files (strict balance
 * sums in floating point, unknown tags), hence this reader. Pure.
 */
import {
  amountToCents,
  clean,
  ibanOf,
  joinRemittance,
  type ParsedEntry,
  type ParsedStatement,
  StatementError,
  usableReference,
} from './statement.domain.js';

/** Looks like MT940/MT942: a statement field (`:20:`, `:25:`, `:60F:`, `:61:` …) at a line start. */
export function looksLikeMt940(text: string): boolean {
  return /(^|\n)\s*:(20|25|28C?|6[0-5][FM]?|61|86):/.test(text);
}

/** YYMMDD → ISO date; a day past the month's end is its last day (banks write February 30th). */
function dateOf(yymmdd: string): string | undefined {
  const m = /^(\d{2})(\d{2})(\d{2})$/.exec(yymmdd);
  if (!m) return undefined;
  const year = 2000 + Number(m[1]);
  const month = Number(m[2]);
  if (month < 1 || month > 12) return undefined;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const day = Math.min(Number(m[3]), last);
  if (day < 1) return undefined;
  return `${year}-${m[2]}-${String(day).padStart(2, '0')}`;
}

/** The entry date (MMDD) in the year nearest to the value date. */
function entryDateOf(valueDate: string, mmdd: string): string | undefined {
  const year = Number(valueDate.slice(0, 4));
  const month = Number(mmdd.slice(0, 2));
  const valueMonth = Number(valueDate.slice(5, 7));
  const y = month - valueMonth > 6 ? year - 1 : valueMonth - month > 6 ? year + 1 : year;
  return dateOf(`${String(y % 100).padStart(2, '0')}${mmdd}`);
}

interface Balance {
  date: string | undefined;
  currency: string | null;
  amount: number;
}

function balanceOf(value: string): Balance | undefined {
  const m = /^([CD])(\d{6})([A-Z]{3})?([\d,]+)/.exec(value.replace(/\s+/g, ''));
  if (!m) return undefined;
  const cents = amountToCents(m[4]!, ',');
  if (cents === undefined) return undefined;
  return { date: dateOf(m[2]!), currency: m[3] ?? null, amount: m[1] === 'D' ? -cents : cents };
}

/** Control characters out (some banks emit them), tabs to spaces; line ends kept. */
function withoutControls(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c === 9) out += ' ';
    else if (c === 10 || c === 13 || (c >= 32 && c !== 127)) out += ch;
  }
  return out;
}

/** The fields of a file in order: [tag, value]; continuation lines joined with "\n". */
function fieldsOf(text: string): [string, string][] {
  const lines = withoutControls(text)
    .replace(/\r\n?/g, '\n')
    // A tag's colon left alone on a line before it (seen in Sparkassen exports).
    .replace(/\n:\n(\d{2}[A-Z]?:)/g, '\n:$1')
    .replace(/\{[1-3]:[^}]*\}/g, '')
    .replace(/\{4:/g, '\n')
    .split('\n');
  const out: [string, string][] = [];
  for (const line of lines) {
    const m = /^:(\d{2}[A-Z]?):(.*)$/.exec(line);
    if (m) {
      out.push([m[1]!, m[2]!]);
      continue;
    }
    if (/^-}?\s*$/.test(line) || line.trim() === '}') {
      out.push(['-', '']);
      continue;
    }
    const last = out.at(-1);
    if (last && last[0] !== '-') last[1] += `\n${line}`;
  }
  return out;
}

interface Details {
  booking_text: string | null;
  remittance: string | null;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  counterparty_bic: string | null;
  end_to_end_id: string | null;
  mandate_id: string | null;
  creditor_reference: string | null;
  /** A return of one of our direct debits (see ParsedEntry). */
  return_reason?: string | null;
}

/**
 * Business transaction codes (GVC) of the German `:86:` that book a SEPA direct debit or
 * transfer coming back: 109 a returned direct debit, 159 a returned transfer.
 */
const RETURN_GVC = new Set(['109', '159']);
/** ISO 20022 return reason codes as banks copy them into the purpose of a return. */
const REASON_CODE =
  /(?:^|[^A-Z0-9])(AC0[1-6]|AC13|AG0[12]|AM0[459]|BE0[15]|FF0[15]|MD0[1267]|MS0[23]|RC01|RR0[1-4]|SL01|CNOR|DNOR|FOCR|DUPL|TECH|FRAD)(?![A-Z0-9])/;

/** The reason code a return's text names, else RVSL (a return all the same). */
function reasonIn(text: string): string {
  return REASON_CODE.exec(text.toUpperCase())?.[1] ?? 'RVSL';
}

const SEPA_TAGS = [
  'EREF',
  'KREF',
  'MREF',
  'CRED',
  'DEBT',
  'SVWZ',
  'ABWA',
  'ABWE',
  'COAM',
  'OAMT',
  'IBAN',
  'BIC',
];

/** SEPA tags (EREF+…) in a purpose text, by tag; undefined when it has none. */
export function sepaTags(purpose: string): Record<string, string> | undefined {
  const re = new RegExp(`(${SEPA_TAGS.join('|')})\\+`, 'g');
  const hits = [...purpose.matchAll(re)];
  if (hits.length === 0 || (hits[0]!.index ?? 0) > 0) return undefined;
  const out: Record<string, string> = {};
  hits.forEach((h, i) => {
    const start = h.index! + h[0].length;
    const end = i + 1 < hits.length ? hits[i + 1]!.index! : purpose.length;
    out[h[1]!] = purpose.slice(start, end).trim();
  });
  return out;
}

const isCreditorReference = (s: string) => /^RF\d{2}[A-Z0-9]{1,21}$/.test(s.replace(/\s+/g, ''));

/** The German structured `:86:` (GVC, ?xx subfields). */
function germanDetails(raw: string): Details | undefined {
  const flat = raw.replace(/\n/g, '');
  const m = /^(\d{3})(\S)/.exec(flat);
  if (!m) return undefined;
  const sep = m[2]!;
  if (!new RegExp(`\\${sep}\\d{2}`).test(flat.slice(3))) return undefined;
  const sub = new Map<number, string>();
  const purposeParts: string[] = [];
  for (const part of flat.slice(4).split(sep)) {
    const k = /^(\d{2})(.*)$/s.exec(part);
    if (!k) continue;
    const key = Number(k[1]);
    if ((key >= 20 && key <= 29) || (key >= 60 && key <= 63)) purposeParts.push(k[2]!);
    else sub.set(key, (sub.get(key) ?? '') + k[2]!);
  }
  // Banks cut the purpose every 27 characters wherever that falls: joined without a space.
  const purpose = purposeParts.join('');
  const tags = sepaTags(purpose);
  const account = sub.get(31)?.trim() ?? null;
  const ref = tags?.KREF && isCreditorReference(tags.KREF) ? tags.KREF.replace(/\s+/g, '') : null;
  const svwz = tags?.SVWZ ?? null;
  const rfInText = svwz && isCreditorReference(svwz) ? svwz.replace(/\s+/g, '') : null;
  return {
    return_reason: RETURN_GVC.has(m[1]!) ? reasonIn(`${sub.get(0) ?? ''} ${tags?.SVWZ ?? purpose}`) : null,
    booking_text: clean(sub.get(0)),
    remittance: clean(tags ? (tags.SVWZ ?? null) : joinRemittance(purposeParts, 27)),
    counterparty_name: clean([sub.get(32) ?? '', sub.get(33) ?? ''].join('')),
    counterparty_iban: ibanOf(account) ?? ibanOf(tags?.IBAN),
    counterparty_bic: clean(sub.get(30))?.match(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/)
      ? clean(sub.get(30))
      : null,
    end_to_end_id: usableReference(clean(tags?.EREF, 35)),
    mandate_id: clean(tags?.MREF, 35),
    creditor_reference: ref ?? rfInText,
  };
}

/** The Dutch `/KEY/value/KEY/value` form (ING, ABN AMRO, Rabobank). */
function slashDetails(raw: string): Details | undefined {
  const flat = raw.replace(/\n/g, '');
  if (!/^\s*\/(TRTP|EREF|NAME|REMI|IBAN|CNTP|BENM|ORDP|MARF|CSID|RTRN)\//.test(flat)) return undefined;
  const keys =
    /\/(TRTP|EREF|NAME|REMI|IBAN|BIC|CNTP|BENM|ORDP|MARF|CSID|RTRN|ISDT|PREF|ID|ADDR|USTD|STRD|CDTRREF|CDTRREFTP|CD|ISSR)\//g;
  const hits = [...flat.matchAll(keys)];
  const v: Record<string, string> = {};
  hits.forEach((h, i) => {
    const end = i + 1 < hits.length ? hits[i + 1]!.index! : flat.length;
    const key = h[1]!;
    if (!(key in v)) v[key] = flat.slice(h.index! + h[0].length, end).replace(/\/$/, '');
  });
  const cntp = v.CNTP?.split('/') ?? [];
  return {
    return_reason: v.RTRN !== undefined ? reasonIn(v.RTRN) : null,
    booking_text: clean(v.TRTP),
    remittance: clean(v.USTD ?? v.REMI),
    counterparty_name: clean(v.NAME ?? cntp[2]),
    counterparty_iban: ibanOf(v.IBAN ?? cntp[0]),
    counterparty_bic: clean(v.BIC ?? cntp[1]),
    end_to_end_id: usableReference(clean(v.EREF, 35)),
    mandate_id: clean(v.MARF, 35),
    creditor_reference: v.CDTRREF && isCreditorReference(v.CDTRREF) ? v.CDTRREF.replace(/\s+/g, '') : null,
  };
}

function detailsOf(raw: string): Details {
  const found = germanDetails(raw) ?? slashDetails(raw);
  if (found) return found;
  // A line of the full 65 characters was cut where it ended: its next line goes on without a space.
  const text = raw
    .split('\n')
    .reduce((acc, l, i, all) => acc + l + (i < all.length - 1 && l.length < 65 ? ' ' : ''), '');
  const tags = sepaTags(text.trim());
  return {
    booking_text: null,
    remittance: clean(tags?.SVWZ ?? text),
    counterparty_name: null,
    counterparty_iban: ibanOf(tags?.IBAN),
    counterparty_bic: null,
    end_to_end_id: usableReference(clean(tags?.EREF, 35)),
    mandate_id: clean(tags?.MREF, 35),
    creditor_reference: null,
  };
}

const LINE_61 =
  /^(\d{6})(\d{4})?(R?[CD])([A-Z])?\n?(\d[\d,]{0,15})([NFS][A-Z0-9]{3}|[A-Z][A-Z0-9 ]{3})?([^\n]*?)(?:\/\/([^\n]*))?(?:\n([\s\S]*))?$/;

interface Line61 {
  entry: ParsedEntry;
}

function entryOf(value: string, currency: string): Line61 {
  const m = LINE_61.exec(value.trim());
  if (!m) throw new StatementError(`an :61: line cannot be read: "${value.slice(0, 40)}"`);
  const valueDate = dateOf(m[1]!);
  if (!valueDate) throw new StatementError(`an :61: line has no valid date: "${value.slice(0, 40)}"`);
  const bookingDate = (m[2] && entryDateOf(valueDate, m[2])) || valueDate;
  const cents = amountToCents(m[5]!, ',');
  if (cents === undefined) throw new StatementError(`an :61: amount cannot be read: "${m[5]}"`);
  const mark = m[3]!;
  const negative = mark === 'D' || mark === 'RC';
  return {
    entry: {
      booking_date: bookingDate,
      value_date: valueDate,
      amount: negative ? -cents : cents,
      currency,
      counterparty_name: null,
      counterparty_iban: null,
      counterparty_bic: null,
      remittance: null,
      creditor_reference: null,
      end_to_end_id: null,
      mandate_id: null,
      bank_reference: usableReference(clean(m[8], 35)),
      booking_text: null,
      // RC and RD book a reversal: a return all the same, its code read from the :86: if any.
      ...(mark.startsWith('R') ? { return_reason: 'RVSL' } : {}),
    },
  };
}

/** Every statement of an MT940/MT942 file. */
export function parseMt940(text: string): ParsedStatement[] {
  const statements: ParsedStatement[] = [];
  let current: ParsedStatement | undefined;
  let lastEntry: ParsedEntry | undefined;
  let statementCurrency: string | null = null;
  const start = (id: string) => {
    current = {
      format: 'mt940',
      statement_id: clean(id, 35),
      account_iban: null,
      account_raw: null,
      currency: null,
      period_start: null,
      period_end: null,
      opening_balance: null,
      closing_balance: null,
      entries: [],
      skipped: 0,
    };
    statements.push(current);
    lastEntry = undefined;
    statementCurrency = null;
  };
  for (const [tag, value] of fieldsOf(text)) {
    if (tag === '-') {
      current = undefined;
      continue;
    }
    if (tag === '20') {
      start(value);
      continue;
    }
    if (!current) start('');
    const s = current!;
    switch (tag) {
      case '25': {
        const v = value.trim();
        const iban = ibanOf(v.split(/[\s/]/)[0]) ?? ibanOf(v.replace(/[A-Z]{3}$/, ''));
        s.account_iban = iban;
        s.account_raw = clean(v, 35);
        const ccy = /(?:^|[\s/]|\d)([A-Z]{3})$/.exec(v);
        if (ccy && !iban?.endsWith(ccy[1]!)) statementCurrency = ccy[1]!;
        break;
      }
      case '28':
      case '28C':
        if (s.statement_id !== null && value.trim())
          s.statement_id = clean(`${s.statement_id}/${value.trim()}`, 35);
        break;
      case '60F':
      case '60M':
      case '60': {
        const b = balanceOf(value);
        if (!b) throw new StatementError(`the opening balance cannot be read: "${value.slice(0, 40)}"`);
        // Before the first entry a later opening balance replaces an earlier one.
        if (s.entries.length === 0) {
          s.opening_balance = b.amount;
          s.currency = b.currency ?? s.currency;
          s.period_start = b.date ?? null;
        }
        break;
      }
      case '62F':
      case '62M':
      case '62': {
        const b = balanceOf(value);
        if (!b) throw new StatementError(`the closing balance cannot be read: "${value.slice(0, 40)}"`);
        s.closing_balance = b.amount;
        s.currency ??= b.currency;
        s.period_end = b.date ?? null;
        break;
      }
      case '34F':
      case '13D':
      case '13':
      case '90D':
      case '90C':
        s.format = 'mt942';
        if (tag === '34F') s.currency ??= /^[A-Z]{3}/.exec(value)?.[0] ?? null;
        break;
      case '61': {
        const currency = s.currency ?? statementCurrency ?? 'EUR';
        const { entry } = entryOf(value, currency);
        s.entries.push(entry);
        lastEntry = entry;
        break;
      }
      case '86': {
        if (!lastEntry) break;
        const d = detailsOf(value);
        const reversal = lastEntry.return_reason === 'RVSL';
        Object.assign(lastEntry, {
          ...d,
          bank_reference: lastEntry.bank_reference,
          ...(reversal && !d.return_reason
            ? { return_reason: reasonIn(`${d.booking_text ?? ''} ${d.remittance ?? ''}`) }
            : {}),
        });
        lastEntry = undefined;
        break;
      }
      default:
        break;
    }
  }
  const kept = statements.filter(
    (s) => s.entries.length > 0 || s.opening_balance !== null || s.closing_balance !== null,
  );
  if (kept.length === 0) throw new StatementError('the file holds no MT940 statement');
  for (const s of kept) {
    const dates = s.entries.map((e) => e.booking_date).sort();
    s.period_start ??= dates[0] ?? null;
    s.period_end ??= dates.at(-1) ?? null;
  }
  return kept;
}
