/**
 * SEPA credit transfer files (pain.001.001.09, and .03 for older bank software) for paying
 * incoming invoices: one payment block per execution date, control sums and counts exact,
 * texts in the SEPA character set (EPC guidelines: Latin letters, digits, / - ? : ( ) . , ' +
 * and space; German umlauts transliterated). Pure: the caller gives every value.
 */
import { isValidBic, isValidIban } from '../../shared/identifiers.js';
import { StatementError } from './statement.domain.js';

export type PainVersion = 'pain.001.001.09' | 'pain.001.001.03';

export interface Transfer {
  /** Cents, positive. */
  amount: number;
  creditor_name: string;
  creditor_iban: string;
  creditor_bic: string | null;
  remittance: string;
  end_to_end_id: string;
}

export interface CreditTransferFile {
  message_id: string;
  /** RFC 3339, the file's creation. */
  created_at: string;
  debtor_name: string;
  debtor_iban: string;
  debtor_bic: string | null;
  execution_date: string;
  transfers: Transfer[];
}

const TRANSLIT: Record<string, string> = {
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  ß: 'ss',
  '&': '+',
};

/** A text in the SEPA character set, cut to `max` characters. */
export function sepaText(s: string, max: number): string {
  const t = [...s.normalize('NFC')]
    .map((ch) => TRANSLIT[ch] ?? ch)
    .join('')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return t.slice(0, max).trim();
}

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Refusals before anything is written: bad IBANs/BICs, amounts, ids. */
function check(f: CreditTransferFile): void {
  const problems: string[] = [];
  if (!isValidIban(f.debtor_iban)) problems.push('the debtor IBAN is not valid');
  if (f.debtor_bic && !isValidBic(f.debtor_bic)) problems.push('the debtor BIC is not valid');
  if (f.transfers.length === 0) problems.push('no transfer');
  f.transfers.forEach((t, i) => {
    if (!Number.isSafeInteger(t.amount) || t.amount <= 0 || t.amount > 99_999_999_999)
      problems.push(`transfer ${i}: the amount must be 0.01 to 999999999.99`);
    if (!isValidIban(t.creditor_iban)) problems.push(`transfer ${i}: the creditor IBAN is not valid`);
    if (t.creditor_bic && !isValidBic(t.creditor_bic))
      problems.push(`transfer ${i}: the creditor BIC is not valid`);
    if (!/^[A-Za-z0-9/\-?:().,'+ ]{1,35}$/.test(t.end_to_end_id))
      problems.push(`transfer ${i}: the end-to-end id must be 1 to 35 SEPA characters`);
    if (sepaText(t.creditor_name, 70) === '') problems.push(`transfer ${i}: the creditor needs a name`);
  });
  if (problems.length > 0) throw new StatementError(problems.join('; '));
}

/** The pain.001 XML of a file of credit transfers. */
export function creditTransferXml(f: CreditTransferFile, version: PainVersion = 'pain.001.001.09'): string {
  check(f);
  const v09 = version === 'pain.001.001.09';
  const count = f.transfers.length;
  const sum = money(f.transfers.reduce((s, t) => s + t.amount, 0));
  const bic = (b: string | null) =>
    b
      ? `<FinInstnId>${v09 ? `<BICFI>${esc(b)}</BICFI>` : `<BIC>${esc(b)}</BIC>`}</FinInstnId>`
      : '<FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId>';
  const txs = f.transfers
    .map(
      (t) =>
        '<CdtTrfTxInf>' +
        `<PmtId><EndToEndId>${esc(t.end_to_end_id)}</EndToEndId></PmtId>` +
        `<Amt><InstdAmt Ccy="EUR">${money(t.amount)}</InstdAmt></Amt>` +
        (t.creditor_bic ? `<CdtrAgt>${bic(t.creditor_bic)}</CdtrAgt>` : '') +
        `<Cdtr><Nm>${esc(sepaText(t.creditor_name, 70))}</Nm></Cdtr>` +
        `<CdtrAcct><Id><IBAN>${esc(t.creditor_iban)}</IBAN></Id></CdtrAcct>` +
        `<RmtInf><Ustrd>${esc(sepaText(t.remittance, 140) || t.end_to_end_id)}</Ustrd></RmtInf>` +
        '</CdtTrfTxInf>',
    )
    .join('');
  const msgId = esc(sepaText(f.message_id, 35));
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${version}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
    '<CstmrCdtTrfInitn>' +
    `<GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>${esc(f.created_at.slice(0, 19))}</CreDtTm>` +
    `<NbOfTxs>${count}</NbOfTxs><CtrlSum>${sum}</CtrlSum>` +
    `<InitgPty><Nm>${esc(sepaText(f.debtor_name, 70))}</Nm></InitgPty></GrpHdr>` +
    `<PmtInf><PmtInfId>${msgId}</PmtInfId><PmtMtd>TRF</PmtMtd><BtchBookg>true</BtchBookg>` +
    `<NbOfTxs>${count}</NbOfTxs><CtrlSum>${sum}</CtrlSum>` +
    '<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>' +
    (v09
      ? `<ReqdExctnDt><Dt>${f.execution_date}</Dt></ReqdExctnDt>`
      : `<ReqdExctnDt>${f.execution_date}</ReqdExctnDt>`) +
    `<Dbtr><Nm>${esc(sepaText(f.debtor_name, 70))}</Nm></Dbtr>` +
    `<DbtrAcct><Id><IBAN>${esc(f.debtor_iban)}</IBAN></Id></DbtrAcct>` +
    `<DbtrAgt>${bic(f.debtor_bic)}</DbtrAgt>` +
    '<ChrgBr>SLEV</ChrgBr>' +
    txs +
    '</PmtInf></CstmrCdtTrfInitn></Document>\n'
  );
}
