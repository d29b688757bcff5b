import { Dec } from '../money.js';
import { COLORS, type Ctx, ensureSpace, LEFT, MM, measure, put, RIGHT, rule, TOP, WIDTH } from './layout.js';
import type { PdfTimesheetRow } from './types.js';

/**
 * The timesheet pages of an invoice made from efforts: on a new page, one row per billed
 * effort (line, date, who, what, hours, rate, amount) under a header repeated on every page,
 * and the hours and amount in total.
 */
const PAD = 3;
const SIZE = 8;

const LABELS = {
  en: {
    title: 'Timesheet',
    pos: 'Line',
    date: 'Date',
    person: 'Who',
    what: 'Work',
    hours: 'Hours',
    rate: 'Rate',
    amount: 'Amount',
    total: 'Total',
  },
  de: {
    title: 'Stundennachweis',
    pos: 'Pos.',
    date: 'Datum',
    person: 'Wer',
    what: 'Tätigkeit',
    hours: 'Std.',
    rate: 'Satz',
    amount: 'Betrag',
    total: 'Summe',
  },
};

interface Column {
  label: string;
  width: number;
  align: 'left' | 'right';
  cell: (r: PdfTimesheetRow) => string;
}

export function drawTimesheet(ctx: Ctx, rows: readonly PdfTimesheetRow[]): void {
  const { pdf, fmt } = ctx;
  const l = LABELS[fmt.lang];
  const fixed: Column[] = [
    { label: l.pos, width: 26, align: 'left', cell: (r) => String(r.position) },
    { label: l.date, width: 58, align: 'left', cell: (r) => fmt.date(r.date) },
    { label: l.person, width: 80, align: 'left', cell: (r) => r.person },
  ];
  const right: Column[] = [
    { label: l.hours, width: 44, align: 'right', cell: (r) => fmt.quantity(r.hours) },
    { label: l.rate, width: 60, align: 'right', cell: (r) => fmt.price(r.rate) },
    { label: l.amount, width: 68, align: 'right', cell: (r) => fmt.money(r.amount) },
  ];
  const used = [...fixed, ...right].reduce((s, c) => s + c.width, 0);
  const cols = [
    ...fixed,
    { label: l.what, width: WIDTH - used, align: 'left' as const, cell: (r: PdfTimesheetRow) => r.what },
    ...right,
  ];
  const header = () => {
    pdf.save().rect(LEFT, ctx.y, WIDTH, 15).fill(COLORS.fill).restore();
    let x = LEFT;
    for (const c of cols) {
      put(pdf, c.label, x + PAD, ctx.y + 4, c.width - 2 * PAD, {
        bold: true,
        size: 7.5,
        color: COLORS.muted,
        align: c.align,
      });
      x += c.width;
    }
    ctx.y += 15;
  };
  pdf.addPage();
  ctx.y = TOP;
  put(pdf, l.title, LEFT, ctx.y, WIDTH, { bold: true, size: 13, color: COLORS.accent });
  ctx.y += 9 * MM;
  header();
  for (const r of rows) {
    const height =
      Math.max(...cols.map((c) => measure(pdf, c.cell(r), c.width - 2 * PAD, { size: SIZE }))) + 6;
    if (ensureSpace(ctx, height)) header();
    let x = LEFT;
    for (const c of cols) {
      put(pdf, c.cell(r), x + PAD, ctx.y + 3, c.width - 2 * PAD, { size: SIZE, align: c.align });
      x += c.width;
    }
    ctx.y += height;
    rule(pdf, ctx.y, LEFT, RIGHT, COLORS.rule, 0.3);
  }
  const hours = rows.reduce((s, r) => s.plus(r.hours), new Dec(0));
  const amount = rows.reduce((s, r) => s.plus(r.amount), new Dec(0));
  ensureSpace(ctx, 18);
  ctx.y += 4;
  const amountX = RIGHT - right[2]!.width;
  const hoursX = amountX - right[1]!.width - right[0]!.width;
  put(pdf, l.total, LEFT + PAD, ctx.y, hoursX - LEFT, { bold: true, size: SIZE });
  put(pdf, fmt.quantity(hours.toString()), hoursX + PAD, ctx.y, right[0]!.width - 2 * PAD, {
    bold: true,
    size: SIZE,
    align: 'right',
  });
  put(pdf, fmt.money(amount.toFixed(2)), amountX + PAD, ctx.y, right[2]!.width - 2 * PAD, {
    bold: true,
    size: SIZE,
    align: 'right',
  });
  ctx.y += 14;
}
