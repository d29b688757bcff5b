/**
 * Reads what the reference parser (the Python `mt940` library) wrote beside each statement of
 * the corpus: its YAML object dump, of which the test needs only the transactions' amounts and
 * dates and the statement balances. A reader for exactly that dump, not for YAML in general.
 */

export interface TruthTransaction {
  /** Signed cents. */
  amount: number;
  /** Value date and entry date (ISO), as the reference parser read them. */
  date: string | null;
  entry_date: string | null;
}

export interface Truth {
  transactions: TruthTransaction[];
  /** Signed cents of the last statement's opening and closing balance, when given. */
  opening: number | null;
  closing: number | null;
}

/** `decimal.Decimal ['-12.30']` → cents. */
function cents(decimal: string): number {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal.trim());
  if (!m) throw new Error(`not a decimal: ${decimal}`);
  const frac = (m[3] ?? '').padEnd(2, '0');
  if (/[^0]/.test(frac.slice(2))) throw new Error(`more than cents: ${decimal}`);
  const v = Number(m[2]) * 100 + Number(frac.slice(0, 2));
  return m[1] ? -v : v;
}

/** The 4 bytes of a `mt940.models.Date` (year high, year low, month, day) → ISO date. */
function date(base64: string): string {
  const b = Buffer.from(base64.trim(), 'base64');
  const year = b[0]! * 256 + b[1]!;
  return `${year}-${String(b[2]).padStart(2, '0')}-${String(b[3]).padStart(2, '0')}`;
}

/** The value of `key:` inside a block of lines: a Decimal amount or a binary Date. */
function field(lines: string[], key: string, indent: number): { amount?: number; date?: string } | null {
  const pad = ' '.repeat(indent);
  const i = lines.findIndex((l) => l.startsWith(`${pad}${key}:`) && !l.startsWith(`${pad}${key}: null`));
  if (i < 0) return null;
  const head = lines[i]!;
  if (head.includes('mt940.models.Date')) return { date: date(lines[i + 2]!) };
  // Amount or Balance: the first Decimal below.
  for (let j = i; j < Math.min(lines.length, i + 6); j++) {
    // `Decimal ['1.00']`, or `Decimal` with `- '1.00'` on the next line.
    const m =
      /decimal\.Decimal \['([^']+)'\]/.exec(lines[j]!) ??
      (/decimal\.Decimal$/.test(lines[j]!) ? /^\s*- '([^']+)'/.exec(lines[j + 1] ?? '') : null);
    if (m) {
      const out: { amount?: number; date?: string } = { amount: cents(m[1]!) };
      const d = lines
        .slice(j, j + 6)
        .findIndex((l) => /^\s+date: !!python\/object\/apply:mt940\.models\.Date/.test(l));
      if (d >= 0) out.date = date(lines[j + d + 2]!);
      return out;
    }
  }
  return null;
}

export function readTruth(yml: string): Truth {
  const lines = yml.replace(/\r\n/g, '\n').split('\n');
  const top = (name: string) => lines.findIndex((l) => l === `${name}:` || l.startsWith(`${name}: `));
  const dataStart = top('data');
  const dataEnd = lines.findIndex((l, i) => i > dataStart && /^[a-z]/.test(l));
  const data = lines.slice(dataStart + 1, dataEnd);
  const balance = (kind: 'opening' | 'closing') =>
    (field(data, `  final_${kind}_balance`.trim(), 2) ?? field(data, `intermediate_${kind}_balance`, 2))
      ?.amount ?? null;
  const start = top('transactions');
  const items: string[][] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^- !!python\/object:mt940\.models\.Transaction/.test(l)) items.push([]);
    else if (/^[a-z]/.test(l)) break;
    else items.at(-1)?.push(l);
  }
  return {
    opening: balance('opening'),
    closing: balance('closing'),
    transactions: items.map((it) => ({
      amount: field(it, 'amount', 4)!.amount!,
      date: field(it, 'date', 4)?.date ?? null,
      entry_date: field(it, 'entry_date', 4)?.date ?? null,
    })),
  };
}
