/**
 * ISO 20022 cash-management messages as banks send them: CAMT.053 (statement), CAMT.052
 * (intraday report) and CAMT.054 (notification), versions 001.02 to 001.13, recognised by the
 * namespace or the root element. Only booked entries are read; a batch entry whose details
 * carry their own amounts becomes one entry per transaction. Pure.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  amountToCents,
  clean,
  ibanOf,
  isIsoDate,
  joinRemittance,
  type ParsedEntry,
  type ParsedStatement,
  StatementError,
  type StatementFormat,
  usableReference,
} from './statement.domain.js';

type Node = Record<string, unknown>;

const obj = (v: unknown): Node =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : Array.isArray(v) ? obj(v[0]) : {};
const list = (v: unknown): Node[] =>
  (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]).map((x) =>
    typeof x === 'object' && x !== null ? (x as Node) : { '#text': x },
  );
const str = (v: unknown): string | undefined => {
  const first = Array.isArray(v) ? v[0] : v;
  const s = typeof first === 'object' && first !== null ? (first as Node)['#text'] : first;
  if (s === undefined || s === null) return undefined;
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t === '' ? undefined : t;
};
/** A path of child names: `at(n, 'Acct', 'Id', 'IBAN')`. */
const at = (n: unknown, ...path: string[]): unknown => {
  let cur: unknown = n;
  for (const p of path) cur = obj(cur)[p];
  return cur;
};
const dateAt = (n: unknown): string | null => {
  const s = str(at(n, 'Dt')) ?? str(at(n, 'DtTm'));
  const d = s?.slice(0, 10);
  return d && isIsoDate(d) ? d : null;
};

const KINDS: Record<string, { format: StatementFormat; list: string }> = {
  BkToCstmrStmt: { format: 'camt.053', list: 'Stmt' },
  BkToCstmrAcctRpt: { format: 'camt.052', list: 'Rpt' },
  BkToCstmrDbtCdtNtfctn: { format: 'camt.054', list: 'Ntfctn' },
};

/** A CAMT message by its namespace or root element. */
export function looksLikeCamt(text: string): boolean {
  return /urn:iso:std:iso:20022:tech:xsd:camt\.05[234]\.|<(\w+:)?BkToCstmr(Stmt|AcctRpt|DbtCdtNtfctn)[\s>]/.test(
    text.slice(0, 4096),
  );
}

const MAX_DEPTH = 40;

function parse(xml: string): Node {
  // No DOCTYPE: it is the only way to declare entities (XML bombs, external files).
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new StatementError('XML with a DOCTYPE is not accepted');
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new StatementError(`the XML is not well-formed: ${valid.err.msg} (line ${valid.err.line})`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: true,
    htmlEntities: false,
    maxNestedTags: MAX_DEPTH,
  });
  try {
    return obj(parser.parse(xml));
  } catch (err) {
    throw new StatementError(`the XML cannot be read: ${(err as Error).message}`);
  }
}

/** Signed cents of an `Amt` with its `CdtDbtInd` sibling. */
function signed(amt: unknown, indicator: string | undefined): { cents: number; currency: string | null } {
  const text = str(amt);
  const cents = text === undefined ? undefined : amountToCents(text, '.');
  if (cents === undefined) throw new StatementError(`an amount cannot be read: "${text ?? ''}"`);
  const currency = str(obj(Array.isArray(amt) ? amt[0] : amt)['@Ccy']) ?? null;
  return { cents: indicator === 'DBIT' ? -cents : cents, currency };
}

/** The party on the other side: the debtor of money in, the creditor of money out. */
function counterparty(tx: Node, credit: boolean) {
  const parties = obj(at(tx, 'RltdPties'));
  const side = credit ? 'Dbtr' : 'Cdtr';
  const party = obj(parties[side]);
  // Version 08 and later wrap the party in `Pty`.
  const name = str(at(party, 'Nm')) ?? str(at(party, 'Pty', 'Nm'));
  const acct = obj(parties[`${side}Acct`]);
  const iban = ibanOf(str(at(acct, 'Id', 'IBAN')));
  const agent = obj(at(tx, 'RltdAgts', `${side}Agt`, 'FinInstnId'));
  const bic = str(agent.BICFI) ?? str(agent.BIC) ?? null;
  return { name: clean(name, 140), iban, bic: clean(bic, 11) };
}

/** The line width German banks cut unstructured remittance into (several `Ustrd`). */
const USTRD_LINE = 35;

function remittanceOf(tx: Node): { text: string | null; reference: string | null } {
  const rmt = obj(at(tx, 'RmtInf'));
  const text = joinRemittance(
    list(rmt.Ustrd).map((u) => str(u) ?? ''),
    USTRD_LINE,
  );
  let reference: string | null = null;
  const lines: string[] = [];
  for (const s of list(rmt.Strd)) {
    const ref = str(at(s, 'CdtrRefInf', 'Ref'));
    if (ref) reference ??= ref.replace(/\s+/g, '');
    for (const extra of list(s.AddtlRmtInf)) lines.push(str(extra) ?? '');
  }
  return { text: clean([text, ...lines].join(' ')), reference: clean(reference, 35) };
}

/** The reason code of a returned or reversed transaction (four letters and digits), else RVSL or null. */
function returnReason(tx: Node, reversal: boolean): string | null {
  const code = str(at(tx, 'RtrInf', 'Rsn', 'Cd'))
    ?.trim()
    .toUpperCase();
  if (code && /^[A-Z0-9]{4}$/.test(code)) return code;
  return reversal || at(tx, 'RtrInf') !== undefined ? 'RVSL' : null;
}

function entriesOf(ntry: Node, fallbackCurrency: string | null): ParsedEntry[] | 'skip' {
  // Version 08 and later: <Sts><Cd>BOOK</Cd></Sts>; before: <Sts>BOOK</Sts>.
  const status = str(at(ntry, 'Sts', 'Cd')) ?? str(ntry.Sts);
  if (status && status !== 'BOOK') return 'skip';
  const indicator = str(ntry.CdtDbtInd);
  const reversal = str(ntry.RvslInd) === 'true';
  const total = signed(ntry.Amt, indicator);
  const credit = total.cents > 0;
  const booking = dateAt(ntry.BookgDt) ?? dateAt(ntry.ValDt);
  if (!booking) throw new StatementError('an entry has no booking date');
  const entryRef = usableReference(clean(str(ntry.AcctSvcrRef), 35));
  const txs = list(at(ntry, 'NtryDtls')).flatMap((d) => list(d.TxDtls));
  const amounts = txs.map((tx) => {
    const a = at(tx, 'Amt') ?? at(tx, 'AmtDtls', 'TxAmt', 'Amt');
    return a === undefined ? undefined : signed(a, str(tx.CdtDbtInd) ?? indicator).cents;
  });
  const split =
    txs.length > 1 &&
    amounts.every((a) => a !== undefined) &&
    amounts.reduce((s, a) => s! + a!, 0) === total.cents;
  const base = {
    booking_date: booking,
    value_date: dateAt(ntry.ValDt),
    currency: total.currency ?? fallbackCurrency ?? 'EUR',
    booking_text: clean(str(ntry.AddtlNtryInf), 500),
  };
  const one = (tx: Node, amount: number, ref: string | null): ParsedEntry => {
    // A return (RtrInf) is booked against the direction of the payment it returns, whose
    // parties the bank repeats: the other side is that payment's debtor or creditor.
    const returned = !reversal && at(tx, 'RtrInf') !== undefined;
    let party = counterparty(tx, returned ? !credit : credit);
    if (returned && !party.name && !party.iban) party = counterparty(tx, credit);
    const rmt = remittanceOf(tx);
    return {
      ...base,
      amount: reversal ? -amount : amount,
      counterparty_name: party.name,
      counterparty_iban: party.iban,
      counterparty_bic: party.bic,
      remittance: rmt.text,
      creditor_reference: rmt.reference,
      end_to_end_id: usableReference(clean(str(at(tx, 'Refs', 'EndToEndId')), 35)),
      mandate_id: clean(str(at(tx, 'Refs', 'MndtId')), 35),
      bank_reference: ref,
      return_reason: returnReason(tx, reversal),
    };
  };
  if (split) {
    return txs.map((tx, i) => {
      const own = usableReference(clean(str(at(tx, 'Refs', 'AcctSvcrRef')), 35));
      return one(tx, amounts[i]!, own ?? (entryRef ? `${entryRef}/${i + 1}` : null));
    });
  }
  const tx = txs[0] ?? {};
  return [one(tx, total.cents, entryRef ?? usableReference(clean(str(at(tx, 'Refs', 'AcctSvcrRef')), 35)))];
}

function balances(stmt: Node) {
  let opening: { cents: number; date: string | null } | null = null;
  let closing: { cents: number; date: string | null } | null = null;
  for (const bal of list(stmt.Bal)) {
    const code = str(at(bal, 'Tp', 'CdOrPrtry', 'Cd')) ?? str(at(bal, 'Tp', 'CdOrPrtry', 'Prtry'));
    const value = { cents: signed(bal.Amt, str(bal.CdtDbtInd)).cents, date: dateAt(bal.Dt) };
    if ((code === 'OPBD' || code === 'PRCD') && !opening) opening = value;
    else if (code === 'CLBD') closing = value;
    else if (code === 'ITBD') {
      if (!opening) opening = value;
      else closing = value;
    }
  }
  return { opening, closing };
}

/** Every statement (report, notification) of a CAMT.053/052/054 message. */
export function parseCamt(xml: string): ParsedStatement[] {
  const doc = obj(parse(xml).Document);
  const kind = Object.keys(KINDS).find((k) => doc[k] !== undefined);
  if (!kind) throw new StatementError('the XML is no CAMT.052, CAMT.053 or CAMT.054 message');
  const { format, list: name } = KINDS[kind]!;
  const out: ParsedStatement[] = [];
  for (const stmt of list(obj(doc[kind])[name])) {
    const acct = obj(stmt.Acct);
    const currency = str(acct.Ccy) ?? null;
    const { opening, closing } = balances(stmt);
    const entries: ParsedEntry[] = [];
    let skipped = 0;
    for (const ntry of list(stmt.Ntry)) {
      const got = entriesOf(ntry, currency);
      if (got === 'skip') skipped++;
      else entries.push(...got);
    }
    const dates = entries.map((e) => e.booking_date).sort();
    const from = str(at(stmt, 'FrToDt', 'FrDtTm'))?.slice(0, 10) ?? str(at(stmt, 'FrToDt', 'FrDt'));
    const to = str(at(stmt, 'FrToDt', 'ToDtTm'))?.slice(0, 10) ?? str(at(stmt, 'FrToDt', 'ToDt'));
    out.push({
      format,
      statement_id: clean(str(stmt.Id), 35),
      account_iban: ibanOf(str(at(acct, 'Id', 'IBAN'))),
      account_raw: clean(str(at(acct, 'Id', 'Othr', 'Id')), 35),
      currency: currency ?? entries[0]?.currency ?? null,
      period_start: (from && isIsoDate(from) ? from : null) ?? opening?.date ?? dates[0] ?? null,
      period_end: (to && isIsoDate(to) ? to : null) ?? closing?.date ?? dates.at(-1) ?? null,
      opening_balance: opening?.cents ?? null,
      closing_balance: closing?.cents ?? null,
      entries,
      skipped,
    });
  }
  if (out.length === 0) throw new StatementError(`the ${format} message holds no statement`);
  return out;
}
