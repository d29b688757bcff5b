/**
 * SEPA payment files: credit transfers (pain.001.001.09, and .03 for older bank software) for
 * paying incoming invoices, and direct debits (pain.008.001.08) for collecting outgoing ones.
 * Control sums and counts exact, texts in the SEPA character set (EPC guidelines: Latin
 * letters, digits, / - ? : ( ) . , ' + and space; German umlauts transliterated). Pure: the
 * caller gives every value.
 */
import { isValidBic, isValidIban, isValidSepaCreditorId } from '../../shared/identifiers.js';

/** A file that cannot be written: the message names what is wrong. */
export class SepaError extends Error {}

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

/** An identifier in the SEPA character set: 1 to 35 characters. */
export const isSepaId = (s: string) => /^[A-Za-z0-9/\-?:().,'+ ]{1,35}$/.test(s);

/**
 * A mandate reference as the EPC rulebook allows it: 1 to 35 characters of the SEPA set
 * without blanks (German banks refuse them), not starting with "/" and without "//".
 */
export const isMandateReference = (s: string) =>
  /^[A-Za-z0-9/\-?:().,'+]{1,35}$/.test(s) && !s.startsWith('/') && !s.includes('//');

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
    if (!isSepaId(t.end_to_end_id))
      problems.push(`transfer ${i}: the end-to-end id must be 1 to 35 SEPA characters`);
    if (sepaText(t.creditor_name, 70) === '') problems.push(`transfer ${i}: the creditor needs a name`);
  });
  if (problems.length > 0) throw new SepaError(problems.join('; '));
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

export type DirectDebitScheme = 'CORE' | 'B2B';
export type SequenceType = 'FRST' | 'RCUR';

export interface Collection {
  /** Cents, positive. */
  amount: number;
  debtor_name: string;
  debtor_iban: string;
  debtor_bic: string | null;
  mandate_reference: string;
  mandate_signed_on: string;
  scheme: DirectDebitScheme;
  sequence_type: SequenceType;
  remittance: string;
  end_to_end_id: string;
  /** The mandate was amended since its last collection: reported once (`AmdmntInfDtls`). */
  amendment?: MandateAmendment | null;
}

/** What changed on a mandate since the debtor's bank last saw it. */
export interface MandateAmendment {
  /** The reference before (`OrgnlMndtId`). */
  original_reference: string | null;
  /** The IBAN before, at the same bank (`OrgnlDbtrAcct`). */
  original_iban: string | null;
  /** The debtor moved to another bank: `OrgnlDbtrAgt` `SMNDA`, and the collection is a FRST. */
  new_debtor_bank: boolean;
}

/**
 * Where the bank is written in the IBAN of SEPA countries (SWIFT IBAN registry): the BBAN's
 * characters [from, to). Branch codes are left out: a new branch is the same bank.
 */
const BANK_CODE: Record<string, [number, number]> = {
  AT: [0, 5],
  BE: [0, 3],
  CH: [0, 5],
  CY: [0, 3],
  CZ: [0, 4],
  DE: [0, 8],
  DK: [0, 4],
  EE: [0, 2],
  ES: [0, 4],
  FI: [0, 3],
  FR: [0, 5],
  GB: [0, 4],
  GR: [0, 3],
  HR: [0, 7],
  HU: [0, 3],
  IE: [0, 4],
  IT: [1, 6],
  LI: [0, 5],
  LT: [0, 5],
  LU: [0, 3],
  LV: [0, 4],
  MC: [0, 5],
  MT: [0, 4],
  NL: [0, 4],
  NO: [0, 4],
  PL: [0, 3],
  PT: [0, 4],
  SE: [0, 3],
  SI: [0, 5],
  SK: [0, 4],
  SM: [1, 6],
};

/**
 * Whether an account change keeps the debtor at the same bank: the same country and bank code
 * in the IBAN, or for a country not in the table the same BIC (its first eight characters).
 * Unknown counts as another bank, the side every bank accepts (see docs/banking.md).
 */
export function sameDebtorBank(
  before: { iban: string; bic: string | null },
  after: { iban: string; bic: string | null },
): boolean {
  const country = before.iban.slice(0, 2);
  if (after.iban.slice(0, 2) !== country) return false;
  const code = BANK_CODE[country];
  if (code) return before.iban.slice(4 + code[0], 4 + code[1]) === after.iban.slice(4 + code[0], 4 + code[1]);
  return before.bic !== null && after.bic !== null && before.bic.slice(0, 8) === after.bic.slice(0, 8);
}

export interface DirectDebitFile {
  message_id: string;
  /** RFC 3339, the file's creation. */
  created_at: string;
  creditor_name: string;
  creditor_iban: string;
  creditor_bic: string | null;
  creditor_identifier: string;
  collection_date: string;
  collections: Collection[];
}

/** Payment blocks of a direct debit file: one per scheme and sequence type, in a fixed order. */
export function collectionBlocks(collections: Collection[]): { key: string; items: Collection[] }[] {
  const order = ['CORE/FRST', 'CORE/RCUR', 'B2B/FRST', 'B2B/RCUR'];
  return order
    .map((key) => ({ key, items: collections.filter((c) => `${c.scheme}/${c.sequence_type}` === key) }))
    .filter((b) => b.items.length > 0);
}

function checkDirectDebits(f: DirectDebitFile): void {
  const problems: string[] = [];
  if (!isValidIban(f.creditor_iban)) problems.push('the creditor IBAN is not valid');
  if (f.creditor_bic && !isValidBic(f.creditor_bic)) problems.push('the creditor BIC is not valid');
  if (!isValidSepaCreditorId(f.creditor_identifier)) problems.push('the creditor identifier is not valid');
  if (sepaText(f.creditor_name, 70) === '') problems.push('the creditor needs a name');
  if (f.collections.length === 0) problems.push('no collection');
  f.collections.forEach((c, i) => {
    if (!Number.isSafeInteger(c.amount) || c.amount <= 0 || c.amount > 99_999_999_999)
      problems.push(`collection ${i}: the amount must be 0.01 to 999999999.99`);
    if (!isValidIban(c.debtor_iban)) problems.push(`collection ${i}: the debtor IBAN is not valid`);
    if (c.debtor_bic && !isValidBic(c.debtor_bic))
      problems.push(`collection ${i}: the debtor BIC is not valid`);
    if (!isMandateReference(c.mandate_reference))
      problems.push(`collection ${i}: the mandate reference is not valid`);
    if (!isSepaId(c.end_to_end_id))
      problems.push(`collection ${i}: the end-to-end id must be 1 to 35 SEPA characters`);
    if (sepaText(c.debtor_name, 70) === '') problems.push(`collection ${i}: the debtor needs a name`);
    const a = c.amendment;
    if (a?.original_reference && !isMandateReference(a.original_reference))
      problems.push(`collection ${i}: the original mandate reference is not valid`);
    if (a?.original_iban && !a.new_debtor_bank && !isValidIban(a.original_iban))
      problems.push(`collection ${i}: the original debtor IBAN is not valid`);
    if (a?.new_debtor_bank && c.sequence_type !== 'FRST')
      problems.push(`collection ${i}: a debtor at another bank (SMNDA) is collected as FRST`);
  });
  if (problems.length > 0) throw new SepaError(problems.join('; '));
}

/**
 * `AmdmntInd` and `AmdmntInfDtls` of an amended mandate, in the schema's order: the reference
 * before; the IBAN before when the bank stayed the same; `SMNDA` as the original debtor agent
 * when the debtor moved to another bank (DK and EPC implementation guidelines). Nothing when
 * nothing changed.
 */
function amendmentXml(a: MandateAmendment | null | undefined): string {
  if (!a) return '';
  const iban = a.original_iban && !a.new_debtor_bank ? a.original_iban : null;
  if (!a.original_reference && !iban && !a.new_debtor_bank) return '';
  return (
    '<AmdmntInd>true</AmdmntInd><AmdmntInfDtls>' +
    (a.original_reference ? `<OrgnlMndtId>${esc(a.original_reference)}</OrgnlMndtId>` : '') +
    (iban ? `<OrgnlDbtrAcct><Id><IBAN>${esc(iban)}</IBAN></Id></OrgnlDbtrAcct>` : '') +
    (a.new_debtor_bank
      ? '<OrgnlDbtrAgt><FinInstnId><Othr><Id>SMNDA</Id></Othr></FinInstnId></OrgnlDbtrAgt>'
      : '') +
    '</AmdmntInfDtls>'
  );
}

/** The pain.008.001.08 XML of a file of direct debits. */
export function directDebitXml(f: DirectDebitFile): string {
  checkDirectDebits(f);
  const sum = (list: Collection[]) => money(list.reduce((s, c) => s + c.amount, 0));
  const agent = (b: string | null) =>
    b
      ? `<FinInstnId><BICFI>${esc(b)}</BICFI></FinInstnId>`
      : '<FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId>';
  const msgId = esc(sepaText(f.message_id, 35));
  const creditorName = esc(sepaText(f.creditor_name, 70));
  const blocks = collectionBlocks(f.collections)
    .map(({ key, items }, n) => {
      const [scheme, seq] = key.split('/');
      const txs = items
        .map(
          (c) =>
            '<DrctDbtTxInf>' +
            `<PmtId><EndToEndId>${esc(c.end_to_end_id)}</EndToEndId></PmtId>` +
            `<InstdAmt Ccy="EUR">${money(c.amount)}</InstdAmt>` +
            '<DrctDbtTx><MndtRltdInf>' +
            `<MndtId>${esc(c.mandate_reference)}</MndtId><DtOfSgntr>${c.mandate_signed_on}</DtOfSgntr>` +
            amendmentXml(c.amendment) +
            '</MndtRltdInf></DrctDbtTx>' +
            `<DbtrAgt>${agent(c.debtor_bic)}</DbtrAgt>` +
            `<Dbtr><Nm>${esc(sepaText(c.debtor_name, 70))}</Nm></Dbtr>` +
            `<DbtrAcct><Id><IBAN>${esc(c.debtor_iban)}</IBAN></Id></DbtrAcct>` +
            `<RmtInf><Ustrd>${esc(sepaText(c.remittance, 140) || c.end_to_end_id)}</Ustrd></RmtInf>` +
            '</DrctDbtTxInf>',
        )
        .join('');
      return (
        `<PmtInf><PmtInfId>${esc(sepaText(`${f.message_id}-${n + 1}`, 35))}</PmtInfId><PmtMtd>DD</PmtMtd>` +
        '<BtchBookg>true</BtchBookg>' +
        `<NbOfTxs>${items.length}</NbOfTxs><CtrlSum>${sum(items)}</CtrlSum>` +
        `<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl><LclInstrm><Cd>${scheme}</Cd></LclInstrm><SeqTp>${seq}</SeqTp></PmtTpInf>` +
        `<ReqdColltnDt>${f.collection_date}</ReqdColltnDt>` +
        `<Cdtr><Nm>${creditorName}</Nm></Cdtr>` +
        `<CdtrAcct><Id><IBAN>${esc(f.creditor_iban)}</IBAN></Id></CdtrAcct>` +
        `<CdtrAgt>${agent(f.creditor_bic)}</CdtrAgt>` +
        '<ChrgBr>SLEV</ChrgBr>' +
        `<CdtrSchmeId><Id><PrvtId><Othr><Id>${esc(f.creditor_identifier)}</Id>` +
        '<SchmeNm><Prtry>SEPA</Prtry></SchmeNm></Othr></PrvtId></Id></CdtrSchmeId>' +
        txs +
        '</PmtInf>'
      );
    })
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    '<CstmrDrctDbtInitn>' +
    `<GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>${esc(f.created_at.slice(0, 19))}</CreDtTm>` +
    `<NbOfTxs>${f.collections.length}</NbOfTxs><CtrlSum>${sum(f.collections)}</CtrlSum>` +
    `<InitgPty><Nm>${creditorName}</Nm></InitgPty></GrpHdr>` +
    blocks +
    '</CstmrDrctDbtInitn></Document>\n'
  );
}
