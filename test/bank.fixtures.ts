/**
 * A generator of bank statements for the tests (never real files): CAMT.053/052/054 in
 * several versions and banks' dialects, MT940 as German (structured `:86:` with ?-subfields
 * and SEPA tags), Dutch (`/KEY/value/`) and plain banks write it. Amounts are cents.
 * Below them, the payment account and suppliers the bank and SEPA tests set up.
 */
import assert from 'node:assert/strict';
import type { Api } from './helpers.js';
import { ALL_INVOICE_SCOPES } from './invoicing.fixtures.js';

/** What the bank tests' token may do: invoices, the bank and the account's profile. */
export const BANKING_SCOPES = [
  ...ALL_INVOICE_SCOPES,
  'banking:read',
  'banking:write',
  'account:read',
  'account:write',
];

export interface GenEntry {
  booking: string;
  value?: string;
  /** Signed cents. */
  amount: number;
  name?: string;
  iban?: string;
  bic?: string;
  text?: string;
  /** The bank's reference (CAMT AcctSvcrRef, MT940 `//`). */
  ref?: string;
  e2e?: string;
  mandate?: string;
  creditorRef?: string;
  /** CAMT status; default BOOK. */
  status?: 'BOOK' | 'PDNG' | 'INFO';
  /** A batch booking: one entry, these transactions inside (CAMT). */
  batch?: Omit<GenEntry, 'booking' | 'batch'>[];
}

export interface GenStatement {
  iban: string;
  currency?: string;
  id?: string;
  /** Cents. */
  opening: number;
  /** Cents; default opening + entries. */
  closing?: number;
  from: string;
  to: string;
  entries: GenEntry[];
}

/** Banks' closing balances hold the booked entries only. */
const closingOf = (s: GenStatement) =>
  s.closing ??
  s.opening + s.entries.reduce((n, e) => n + ((e.status ?? 'BOOK') === 'BOOK' ? e.amount : 0), 0);
const dec = (cents: number, sep = '.') => {
  const a = Math.abs(cents);
  return `${Math.floor(a / 100)}${sep}${String(a % 100).padStart(2, '0')}`;
};
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export type CamtKind = '053' | '052' | '054';
export interface CamtOptions {
  /** 02 … 08 (and later): the element forms change at 04 (BICFI) and 08 (Sts/Cd, Pty). */
  version?: string;
  /** Namespace prefix on every element, as some banks write it. */
  prefix?: string;
  /** Remittance cut into 35-character Ustrd lines (German banks). */
  splitUstrd?: boolean;
  /** Amounts inside TxDtls as AmtDtls/TxAmt (older) instead of Amt. */
  amtDtls?: boolean;
}

export function camt(kind: CamtKind, s: GenStatement, o: CamtOptions = {}): string {
  const version = o.version ?? '08';
  const v = Number(version);
  const p = o.prefix ? `${o.prefix}:` : '';
  const ccy = s.currency ?? 'EUR';
  const root = { '053': 'BkToCstmrStmt', '052': 'BkToCstmrAcctRpt', '054': 'BkToCstmrDbtCdtNtfctn' }[kind];
  const item = { '053': 'Stmt', '052': 'Rpt', '054': 'Ntfctn' }[kind];
  const t = (name: string, body: string) => `<${p}${name}>${body}</${p}${name}>`;
  const amt = (cents: number) => `<${p}Amt Ccy="${ccy}">${dec(cents)}</${p}Amt>`;
  const ind = (cents: number) => t('CdtDbtInd', cents < 0 ? 'DBIT' : 'CRDT');
  const bal = (code: string, cents: number, date: string) =>
    t('Bal', t('Tp', t('CdOrPrtry', t('Cd', code))) + amt(cents) + ind(cents) + t('Dt', t('Dt', date)));
  const party = (name: string) => (v >= 8 ? t('Pty', t('Nm', xml(name))) : t('Nm', xml(name)));
  const tx = (e: Omit<GenEntry, 'booking' | 'batch'>, withAmount: boolean) => {
    const credit = e.amount > 0;
    const side = credit ? 'Dbtr' : 'Cdtr';
    const refs =
      (e.e2e || e.mandate
        ? t(
            'Refs',
            (e.e2e ? t('EndToEndId', xml(e.e2e)) : '') + (e.mandate ? t('MndtId', xml(e.mandate)) : ''),
          )
        : '') + (e.ref && withAmount ? '' : '');
    const amount = withAmount
      ? o.amtDtls
        ? t('AmtDtls', t('TxAmt', amt(e.amount)))
        : amt(e.amount) + ind(e.amount)
      : '';
    const parties =
      e.name || e.iban
        ? t(
            'RltdPties',
            (e.name ? t(side, party(e.name)) : '') +
              (e.iban ? t(`${side}Acct`, t('Id', t('IBAN', e.iban))) : ''),
          )
        : '';
    const agents = e.bic
      ? t('RltdAgts', t(`${side}Agt`, t('FinInstnId', t(v >= 4 ? 'BICFI' : 'BIC', e.bic))))
      : '';
    let rmt = '';
    if (e.creditorRef) {
      rmt = t(
        'RmtInf',
        t('Strd', t('CdtrRefInf', t('Tp', t('CdOrPrtry', t('Cd', 'SCOR'))) + t('Ref', e.creditorRef))),
      );
    } else if (e.text) {
      const lines = o.splitUstrd ? (e.text.match(/.{1,35}/g) ?? []) : [e.text];
      rmt = t('RmtInf', lines.map((l) => t('Ustrd', xml(l))).join(''));
    }
    return t('TxDtls', refs + amount + parties + agents + rmt);
  };
  const entry = (e: GenEntry) => {
    const status = e.status ?? 'BOOK';
    const details = e.batch
      ? t(
          'NtryDtls',
          t('Btch', t('NbOfTxs', String(e.batch.length))) + e.batch.map((b) => tx(b, true)).join(''),
        )
      : t('NtryDtls', tx(e, false));
    return t(
      'Ntry',
      amt(e.amount) +
        ind(e.amount) +
        t('Sts', v >= 8 ? t('Cd', status) : status) +
        t('BookgDt', t('Dt', e.booking)) +
        t('ValDt', t('Dt', e.value ?? e.booking)) +
        (e.ref ? t('AcctSvcrRef', xml(e.ref)) : '') +
        t('BkTxCd', t('Prtry', t('Cd', e.amount > 0 ? 'NTRF+166' : 'NTRF+177') + t('Issr', 'DK'))) +
        details,
    );
  };
  const balances =
    kind === '054'
      ? ''
      : kind === '052'
        ? bal('ITBD', s.opening, s.from) + bal('ITBD', closingOf(s), s.to)
        : bal('PRCD', s.opening, s.from) + bal('CLBD', closingOf(s), s.to);
  const ns = `urn:iso:std:iso:20022:tech:xsd:camt.${kind}.001.${version.padStart(2, '0')}`;
  const body =
    t('GrpHdr', t('MsgId', `MSG-${s.id ?? 'X'}`) + t('CreDtTm', `${s.to}T18:00:00`)) +
    t(
      item,
      t('Id', s.id ?? `${kind}-${s.from}`) +
        t('CreDtTm', `${s.to}T18:00:00`) +
        t('FrToDt', t('FrDtTm', `${s.from}T00:00:00`) + t('ToDtTm', `${s.to}T23:59:59`)) +
        t('Acct', t('Id', t('IBAN', s.iban)) + t('Ccy', ccy)) +
        balances +
        s.entries.map(entry).join(''),
    );
  const xmlns = o.prefix ? `xmlns:${o.prefix}="${ns}"` : `xmlns="${ns}"`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${p}Document ${xmlns} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${t(root, body)}</${p}Document>\n`;
}

export type Mt940Dialect = 'german' | 'dutch' | 'plain';
export interface Mt940Options {
  dialect?: Mt940Dialect;
  /** `:25:` as BLZ/account instead of the IBAN. */
  legacyAccount?: string;
  /** SWIFT blocks {1:…}{2:…}{4: … -} around the statement. */
  swiftBlocks?: boolean;
  lineEnd?: '\r\n' | '\n';
}

const yymmdd = (iso: string) => iso.slice(2).replace(/-/g, '');
const mmdd = (iso: string) => iso.slice(5).replace(/-/g, '');

/** `:86:` the way German banks fill it: GVC, ?00 text, ?20–?29/?60–?63 purpose in 27s. */
function german86(e: GenEntry): string {
  const tags = [
    e.e2e ? `EREF+${e.e2e}` : '',
    e.creditorRef ? `KREF+${e.creditorRef}` : '',
    e.mandate ? `MREF+${e.mandate}` : '',
    e.text ? `SVWZ+${e.text}` : '',
  ].join('');
  const chunks = tags.match(/.{1,27}/g) ?? [];
  const keys = [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 60, 61, 62, 63];
  const purpose = chunks
    .slice(0, keys.length)
    .map((c, i) => `?${keys[i]}${c}`)
    .join('');
  const gvc = e.amount > 0 ? '166' : '177';
  const name = e.name ?? '';
  return `${gvc}?00${e.amount > 0 ? 'GUTSCHR. UEBERWEISUNG' : 'ONLINE-UEBERWEISUNG'}?109310${purpose}${e.bic ? `?30${e.bic}` : ''}${e.iban ? `?31${e.iban}` : ''}${name ? `?32${name.slice(0, 27)}` : ''}${name.length > 27 ? `?33${name.slice(27, 54)}` : ''}?34997`;
}

function dutch86(e: GenEntry): string {
  return [
    `/TRTP/SEPA OVERBOEKING`,
    e.iban ? `/IBAN/${e.iban}` : '',
    e.bic ? `/BIC/${e.bic}` : '',
    e.name ? `/NAME/${e.name}` : '',
    e.text ? `/REMI/${e.text}` : '',
    e.e2e ? `/EREF/${e.e2e}` : '',
  ].join('');
}

/** Wraps a field value at 65 characters, as MT940 lines are. */
const wrap = (s: string, end: string) => (s.match(/.{1,65}/g) ?? ['']).join(end);

export function mt940(statements: GenStatement[], o: Mt940Options = {}): string {
  const end = o.lineEnd ?? '\r\n';
  const dialect = o.dialect ?? 'german';
  const out: string[] = [];
  for (const [n, s] of statements.entries()) {
    const ccy = s.currency ?? 'EUR';
    const mark = (c: number) => (c < 0 ? 'D' : 'C');
    if (o.swiftBlocks)
      out.push(
        `{1:F01TESTDEFFXXXX0000000000}{2:O9401200${yymmdd(s.to)}TESTDEFFXXXX00000000000000000000N}{4:`,
      );
    out.push(`:20:${s.id ?? `STARTUMS${n}`}`);
    out.push(`:25:${o.legacyAccount ?? s.iban}`);
    out.push(`:28C:${String(n + 1).padStart(5, '0')}/001`);
    out.push(`:60F:${mark(s.opening)}${yymmdd(s.from)}${ccy}${dec(s.opening, ',')}`);
    for (const e of s.entries) {
      const value = e.value ?? e.booking;
      out.push(
        `:61:${yymmdd(value)}${mmdd(e.booking)}${mark(e.amount)}${dialect === 'german' ? 'R' : ''}${dec(e.amount, ',')}NTRF${(e.e2e ?? 'NONREF').slice(0, 16)}${e.ref ? `//${e.ref}` : ''}`,
      );
      const info = dialect === 'german' ? german86(e) : dialect === 'dutch' ? dutch86(e) : (e.text ?? '');
      out.push(`:86:${wrap(info, end)}`);
    }
    out.push(`:62F:${mark(closingOf(s))}${yymmdd(s.to)}${ccy}${dec(closingOf(s), ',')}`);
    out.push(o.swiftBlocks ? '-}' : '-');
  }
  return out.join(end) + end;
}

// ---- the setup the bank tests share: our account, suppliers with bank details ------------

/** Our own account: the IBAN the generated statements and SEPA files name. */
export const OWN_IBAN = 'DE02120300000000202051';
export const OWN_BIC = 'BYLADEM1001';
/** A supplier's (or a debtor's) account at another bank. */
export const SUPPLIER_IBAN = 'DE89370400440532013000';
export const SUPPLIER_BIC = 'COBADEFFXXX';
/** A second outside account. */
export const OTHER_IBAN = 'DE75512108001245126199';

/** An ISO date `n` days from today (SEPA dates must not lie in the past). */
export const daysFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** A payment account of the token's account (POST /payment-accounts), answering its id. */
export async function makePaymentAccount(
  api: Api,
  body: { name?: string; iban?: string; bic?: string } = {},
): Promise<number> {
  const res = await api.post('/payment-accounts', { name: 'Main', iban: OWN_IBAN, ...body });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

/** A supplier with its bank details (POST /suppliers), answering its id. */
export async function makeSupplier(
  api: Api,
  body: { name: string; iban?: string; bic?: string },
): Promise<number> {
  const res = await api.post('/suppliers', body);
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}
