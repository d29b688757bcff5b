import { taxCategory } from './facturx.js';
import { defaultExemptionReason, isZero, negate } from './format.js';
import {
  BOTTOM,
  COLORS,
  type Ctx,
  ensureSpace,
  LEFT,
  MM,
  measure,
  put,
  RIGHT,
  rule,
  TOP,
  WIDTH,
} from './layout.js';
import type { PdfLine } from './types.js';
import { unitLabel } from './units.js';

/**
 * The body of a document: free texts, the positions table (repeating its header on every page
 * it continues on) and the totals block. Positions are cut between a title and its description
 * paragraphs, never inside a line of text.
 */
const PAD = 3; // horizontal cell padding
const ROW_PAD = 4.5; // vertical row padding
const SIZE = 8.5;

interface Column {
  label: string;
  width: number;
  align: 'left' | 'right';
  cell: (line: PdfLine) => string;
}

function columns(ctx: Ctx): Column[] {
  const { doc, fmt } = ctx;
  const l = fmt.labels;
  const withDiscount = doc.lines.some((line) => line.discount && !isZero(line.discount));
  const fixed: Column[] = [
    {
      label: l.quantity,
      width: 62,
      align: 'right',
      cell: (line) => {
        const unit = unitLabel(line.unit, fmt.lang, line.quantity);
        return `${fmt.quantity(line.quantity)} ${unit}`.trim();
      },
    },
    { label: l.unitPrice, width: 68, align: 'right', cell: (line) => fmt.price(line.unit_price) },
    ...(withDiscount
      ? [
          {
            label: l.discount,
            width: 40,
            align: 'right' as const,
            cell: (line: PdfLine) =>
              line.discount && !isZero(line.discount) ? fmt.percent(line.discount) : '',
          },
        ]
      : []),
    { label: l.tax, width: 38, align: 'right', cell: (line) => fmt.percent(line.tax_rate) },
    { label: l.total, width: 74, align: 'right', cell: (line) => fmt.money(line.net_total) },
  ];
  const pos: Column = { label: l.pos, width: 26, align: 'left', cell: (line) => String(line.position) };
  const used = pos.width + fixed.reduce((sum, c) => sum + c.width, 0);
  const description: Column = {
    label: l.description,
    width: WIDTH - used,
    align: 'left',
    cell: (line) => line.title,
  };
  return [pos, description, ...fixed];
}

function drawHeader(ctx: Ctx, cols: Column[]): void {
  const { pdf } = ctx;
  const height = 16;
  pdf.save().rect(LEFT, ctx.y, WIDTH, height).fill(COLORS.fill).restore();
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
  ctx.y += height;
}

export function drawPositions(ctx: Ctx): void {
  const { pdf, doc } = ctx;
  const cols = columns(ctx);
  const descWidth = cols[1]!.width - 2 * PAD;
  ensureSpace(ctx, 16 + 40);
  drawHeader(ctx, cols);
  const newPage = (height: number) => {
    if (ensureSpace(ctx, height)) drawHeader(ctx, cols);
  };

  for (const line of doc.lines) {
    const titleHeight = measure(pdf, line.title, descWidth, { bold: true, size: SIZE });
    const cellHeights = cols.map((c, i) =>
      i === 1 ? titleHeight : measure(pdf, c.cell(line), c.width - 2 * PAD, { size: SIZE }),
    );
    const firstHeight = Math.max(...cellHeights);
    const paragraphs = (line.description ?? '')
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean);
    const paraHeights = paragraphs.map(
      (p) => measure(pdf, p, descWidth, { size: 8, color: COLORS.muted }) + 2,
    );

    // Keep the title with its first paragraph when both fit on an empty page.
    const together = ROW_PAD * 2 + firstHeight + (paraHeights[0] ?? 0);
    newPage(together <= BOTTOM - TOP - 16 ? together : ROW_PAD * 2 + firstHeight);
    const top = ctx.y + ROW_PAD;
    let x = LEFT;
    cols.forEach((c, i) => {
      const text = i === 1 ? line.title : c.cell(line);
      put(pdf, text, x + PAD, top, c.width - 2 * PAD, { bold: i === 1, size: SIZE, align: c.align });
      x += c.width;
    });
    ctx.y = top + firstHeight;
    paragraphs.forEach((p, i) => {
      newPage(paraHeights[i]! + ROW_PAD);
      ctx.y += 2;
      put(pdf, p, LEFT + cols[0]!.width + PAD, ctx.y, descWidth, { size: 8, color: COLORS.muted });
      ctx.y += paraHeights[i]! - 2;
    });
    ctx.y += ROW_PAD;
    rule(pdf, ctx.y, LEFT, RIGHT, COLORS.rule, 0.3);
  }
  ctx.y += 3 * MM;
}

interface TotalRow {
  label: string;
  amount: string;
  bold?: boolean;
  small?: boolean;
  ruleAbove?: boolean;
}

function totalRows(ctx: Ctx): TotalRow[] {
  const { doc, fmt } = ctx;
  const l = fmt.labels;
  const rows: TotalRow[] = [{ label: l.netTotal, amount: fmt.money(doc.net_total) }];
  for (const t of doc.taxes) {
    rows.push({ label: l.vatOn(fmt.percent(t.rate), fmt.money(t.net)), amount: fmt.money(t.tax) });
  }
  rows.push({ label: l.grossTotal, amount: fmt.money(doc.gross_total), bold: true, ruleAbove: true });
  const deductions = doc.deductions ?? [];
  for (const d of deductions) {
    rows.push({
      label: `${l.less} ${d.title}${d.number ? ` ${d.number}` : ''}`,
      amount: fmt.money(negate(d.gross)),
    });
    rows.push({ label: l.deductionDetail(fmt.money(d.net), fmt.money(d.tax)), amount: '', small: true });
  }
  const paid = !isZero(doc.paid_total);
  if (paid) rows.push({ label: l.paid, amount: fmt.money(negate(doc.paid_total!)) });
  if (doc.amount_due != null && (deductions.length > 0 || paid || doc.amount_due !== doc.gross_total)) {
    rows.push({ label: l.amountDue, amount: fmt.money(doc.amount_due), bold: true, ruleAbove: true });
  }
  return rows;
}

export function drawTotals(ctx: Ctx): void {
  const { pdf } = ctx;
  const blockWidth = 300;
  const amountWidth = 80;
  const x = RIGHT - blockWidth;
  const labelWidth = blockWidth - amountWidth - 6;
  const rows = totalRows(ctx).map((r) => {
    const style = { bold: r.bold, size: r.small ? 7.5 : 9, color: r.small ? COLORS.muted : COLORS.text };
    return {
      ...r,
      style,
      height: measure(pdf, r.label, labelWidth, style) + (r.small ? 2 : 4) + (r.ruleAbove ? 4 : 0),
    };
  });
  ensureSpace(
    ctx,
    rows.reduce((sum, r) => sum + r.height, 0),
  );
  for (const r of rows) {
    if (r.ruleAbove) {
      rule(pdf, ctx.y + 1, x, RIGHT, COLORS.text, 0.6);
      ctx.y += 4;
    }
    put(pdf, r.label, x, ctx.y, labelWidth, r.style);
    put(pdf, r.amount, RIGHT - PAD - amountWidth, ctx.y, amountWidth, { ...r.style, align: 'right' });
    ctx.y += r.height - (r.ruleAbove ? 4 : 0);
  }
  ctx.y += 4 * MM;
}

/** A paragraph in the body; long texts flow onto further pages by themselves. */
export function drawParagraph(ctx: Ctx, text: string | null | undefined, size = 9): void {
  if (!text?.trim()) return;
  const { pdf } = ctx;
  const height = measure(pdf, text.trim(), WIDTH, { size });
  // Do not start a paragraph with a lone line at the bottom of a page.
  ensureSpace(ctx, Math.min(height, 3 * size * 1.4));
  put(pdf, text.trim(), LEFT, ctx.y, WIDTH, { size });
  ctx.y = pdf.y + 3 * MM;
}

/** The legally required note why a 0 % rate carries no VAT (exemption, reverse charge …). */
export function drawExemptionNotes(ctx: Ctx): void {
  const { doc, fmt } = ctx;
  const notes = new Set<string>();
  for (const t of doc.taxes) {
    const category = taxCategory(t);
    if (category === 'S' || category === 'Z') continue;
    const note = t.exemption_reason ?? defaultExemptionReason(fmt.lang, category);
    if (note) notes.add(note);
  }
  for (const note of notes) drawParagraph(ctx, note, 8.5);
}
