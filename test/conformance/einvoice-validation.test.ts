import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, it } from 'node:test';
import { promisify } from 'node:util';
import { type Api, describeEachDb } from '../helpers.js';
import { bookNow, freshAccount, line, makeClient, makeInvoice } from '../invoicing.fixtures.js';
import { material } from './material.js';

/**
 * Every kind of document the service books — invoice, credit, deposit, partial, final with the
 * deposits deducted, reverse charge, intra-community and exempt 0 % — downloaded as UBL, as CII and as the
 * PDF with its embedded XML, checked by the official EN 16931 rules and, for a buyer with a
 * buyer reference (Leitweg-ID), the XRechnung 3.0 rules (the conformance material's validation/).
 */

const run = promisify(execFile);
const VALIDATOR = process.env.EINVOICE_VALIDATOR ?? material('validator');
const SAXON = process.env.SAXON_JAR ?? '/usr/share/java/Saxon-HE.jar';

/** Why the official validators cannot run here, or null. */
async function missingValidator(): Promise<string | null> {
  if (!existsSync(VALIDATOR)) return `the validator script is not at ${VALIDATOR}`;
  if (!existsSync(SAXON)) return `Saxon-HE is not at ${SAXON} (apt-get install -y libsaxonhe-java)`;
  // Only whether the programs exist: `pdfdetach -v` exits non-zero by design.
  const exists = (cmd: string, args: string[]) =>
    run(cmd, args).then(
      () => true,
      (err: { code?: unknown }) => err.code !== 'ENOENT',
    );
  if (!(await exists('java', ['-version'])))
    return 'java is not installed (apt-get install -y default-jre-headless)';
  if (!(await exists('pdfdetach', ['-v'])))
    return 'pdfdetach is not installed (apt-get install -y poppler-utils)';
  return null;
}

// The conformance tier fails, never skips, when it cannot check.
const missing = await missingValidator();
if (missing) throw new Error(`E-invoice validation cannot run: ${missing}.`);

/**
 * Java for a short run: the quick compiler only and the simplest collector take half the CPU
 * time of the defaults to compile and apply a rule set (the answers are the same).
 */
const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** Rule sets run and documents each ran on, over the whole file (printed at the end). */
const ran = new Map<string, number>();

/**
 * The validator script's checks (validation/validate-einvoice of the conformance material) on many documents at
 * once: the XML taken out of each PDF as the script does, the syntax detected as it does, then
 * each rule set run by Saxon over a directory of documents, so that Java starts and compiles
 * the rule set once per set and syntax instead of once per document (some hundred starts of a
 * 900 KB stylesheet made this the slowest test file). Reported per document as the script
 * reports it; one document per test also goes through the script itself, and the two answers
 * must agree.
 */
async function validateBatch(files: string[], xrechnung: boolean, work: string): Promise<string[]> {
  const rules = dirname(VALIDATOR);
  const docs: { syntax?: 'CII' | 'UBL'; name: string; error?: string }[] = [];
  for (const [i, file] of files.entries()) {
    const name = `doc-${i}.xml`;
    const doc: (typeof docs)[number] = { name };
    docs.push(doc);
    let xml: Buffer;
    if (readFileSync(file).subarray(0, 5).toString('latin1') === '%PDF-') {
      const out = join(work, `pdf-${i}`);
      mkdirSync(out);
      await run('pdfdetach', ['-saveall', '-o', out, file]);
      const embedded = readdirSync(out)
        .filter((f) => f.endsWith('.xml'))
        .sort();
      if (embedded.length === 0) {
        doc.error = 'no embedded XML in the PDF';
        continue;
      }
      xml = readFileSync(join(out, embedded[0]!));
    } else xml = readFileSync(file);
    const text = xml.toString('utf8');
    if (text.includes('CrossIndustryInvoice')) doc.syntax = 'CII';
    else if (/urn:oasis:names:specification:ubl:schema:xsd:(Invoice|CreditNote)-2/.test(text))
      doc.syntax = 'UBL';
    else {
      doc.error = 'neither UBL 2.1 nor CII';
      continue;
    }
    mkdirSync(join(work, doc.syntax, 'in'), { recursive: true });
    writeFileSync(join(work, doc.syntax, 'in', name), xml);
  }

  const sets = xrechnung ? ['EN16931', 'XRechnung'] : ['EN16931'];
  const fired = new Map<string, number>();
  const failed = new Map<string, Set<string>>();
  const jobs = sets.flatMap((set) =>
    (['CII', 'UBL'] as const)
      .filter((syntax) => docs.some((d) => d.syntax === syntax))
      .map((syntax) => async () => {
        const out = join(work, syntax, set);
        mkdirSync(out);
        await run(
          'java',
          [
            ...JVM_FLAGS,
            '-cp',
            SAXON,
            'net.sf.saxon.Transform',
            `-s:${join(work, syntax, 'in')}`,
            `-xsl:${join(rules, `${set}-${syntax}-validation.xslt`)}`,
            `-o:${out}`,
          ],
          { maxBuffer: 1 << 24 },
        ).catch((err: { stderr?: string; code?: number }) => {
          throw new Error(
            `${set}-${syntax}: not well-formed: ${(err.stderr ?? '').slice(0, 300)} (exit ${err.code})`,
          );
        });
        for (const d of docs.filter((d) => d.syntax === syntax)) {
          const svrl = readFileSync(join(out, d.name), 'utf8');
          // As the script counts: lines naming a fired rule; failures flagged fatal or error.
          const lines = svrl.split('\n').filter((l) => l.includes('fired-rule')).length;
          fired.set(d.name, (fired.get(d.name) ?? 0) + lines);
          const fails = failed.get(d.name) ?? new Set<string>();
          failed.set(d.name, fails);
          for (const m of svrl.matchAll(/<(?:[\w.-]+:)?failed-assert\b([^>]*)>/g)) {
            const flag = /\bflag="([^"]*)"/.exec(m[1]!)?.[1];
            const id = /\bid="([^"]*)"/.exec(m[1]!)?.[1];
            if ((flag === 'fatal' || flag === 'error') && id) fails.add(id);
          }
          ran.set(`${set}-${syntax}`, (ran.get(`${set}-${syntax}`) ?? 0) + 1);
        }
      }),
  );
  await pool(jobs, 2);
  return docs.map((d) => {
    if (d.error) return d.error;
    const fails = [...failed.get(d.name)!].sort();
    const count = `(${fired.get(d.name)} rules fired)`;
    return fails.length
      ? `${d.syntax}: fatal rules failed: ${fails.join(' ')} ${count}`
      : `${d.syntax}: valid ${count}`;
  });
}

/** The validator script on one file, as it reports it. */
async function validateOne(file: string, xrechnung: boolean): Promise<string> {
  const args = xrechnung ? ['--xrechnung', file] : [file];
  try {
    const env = { ...process.env, JAVA_TOOL_OPTIONS: JVM_FLAGS.join(' ') };
    return (await run(VALIDATOR, args, { maxBuffer: 1 << 20, env })).stdout.trim();
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    throw new Error(`${file}: ${e.stdout ?? ''}${e.stderr ?? ''} (exit ${e.code})`);
  }
}

/** Runs at most `limit` tasks at once (each starts Java). */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]!();
      }
    }),
  );
  return out;
}

describeEachDb('e-invoices pass the official EN 16931 and XRechnung rules', (ctx) => {
  let api: Api;
  let dir: string;

  before(async () => {
    ({ api } = await freshAccount(ctx));
    dir = mkdtempSync(join(tmpdir(), 'einvoice-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (ran.size > 0)
      console.log(
        `e-invoice rule sets run: ${[...ran].map(([set, n]) => `${set} on ${n} documents`).join(', ')}`,
      );
  });

  /** Books one of every kind for a client and returns [label, id] pairs. */
  async function bookEveryKind(
    client: number,
    euClient: number,
    euCategory: 'AE' | 'K',
  ): Promise<[string, number][]> {
    const docs: [string, number][] = [];
    const invoice = await makeInvoice(api, {
      client_id: client,
      title: 'Relaunch',
      service_period_start: '2026-11-01',
      service_period_end: '2026-11-30',
      line_items: [
        line(95, { title: 'Development', quantity: 12.5, unit: 'h' }),
        line(800, { title: 'Workshop', quantity: 2, unit: 'Tag', discount: 10 }),
        line(49.9, { title: 'Print', tax_rate: 7, unit: 'Stk.', quantity: 3 }),
        line(250, { title: 'Setup', unit: 'pauschal', description: 'One-off' }),
      ],
    });
    docs.push(['invoice', (await bookNow(api, invoice.id)).id]);
    const credit = await makeInvoice(api, {
      type: 'credit',
      client_id: client,
      credited_invoice_id: invoice.id,
      line_items: [line(-95, { title: 'Goodwill', unit: 'h', quantity: 2 })],
    });
    docs.push(['credit', (await bookNow(api, credit.id)).id]);
    const plan = (
      await api.post('/outgoing-invoices/partial-plans', {
        client_id: client,
        title: 'Website',
        line_items: [line(10000, { title: 'Website' }), line(2000, { title: 'Print', tax_rate: 7 })],
      })
    ).body.data;
    const deposit = (
      await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, { type: 'deposit', value: 3000 })
    ).body.data;
    docs.push(['deposit', (await bookNow(api, deposit.id)).id]);
    const partial = (
      await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
        type: 'partial',
        line_items: [line(2500, { title: 'Design phase' })],
      })
    ).body.data;
    docs.push(['partial', (await bookNow(api, partial.id)).id]);
    const final = await bookNow(api, plan.final_invoice_id);
    assert.equal(final.deductions.length, 2, 'the final invoice deducts the deposit and the partial invoice');
    docs.push(['final', final.id]);
    const reverse = await makeInvoice(api, {
      client_id: euClient,
      tax_exemption_category: euCategory,
      line_items: [line(1200, { title: 'Consulting', unit: 'Tag', quantity: 1.5, tax_rate: 0 })],
    });
    docs.push([
      euCategory === 'AE' ? 'reverse charge' : 'intra-community',
      (await bookNow(api, reverse.id)).id,
    ]);
    const exempt = await makeInvoice(api, {
      client_id: client,
      tax_exemption_category: 'E',
      tax_exemption_reason: 'Steuerfreie Leistung gemäß § 4 Nr. 21 UStG',
      line_items: [line(300, { title: 'Training', tax_rate: 0 }), line(100, { title: 'Material' })],
    });
    docs.push(['exempt', (await bookNow(api, exempt.id)).id]);
    return docs;
  }

  async function validateAll(docs: [string, number][], xrechnung: boolean) {
    const labels: string[] = [];
    const files: string[] = [];
    for (const [label, id] of docs) {
      for (const variant of ['xml?syntax=ubl', 'xml?syntax=cii', 'pdf']) {
        const res = await api.app.inject({
          url: `/api/v1/outgoing-invoices/${id}/${variant}`,
          headers: { authorization: `Bearer ${api.token}` },
        });
        assert.equal(res.statusCode, 200, `${label} ${variant}: ${res.body.slice(0, 300)}`);
        const file = join(dir, `${id}-${variant.replace(/\W+/g, '-')}.${variant === 'pdf' ? 'pdf' : 'xml'}`);
        writeFileSync(file, res.rawPayload);
        labels.push(`${label} ${variant}`);
        files.push(file);
      }
    }
    const work = mkdtempSync(join(dir, 'batch-'));
    const verdicts = await validateBatch(files, xrechnung, work);
    const results = verdicts.map((v, i) => `${labels[i]}: ${v}`);
    for (const r of results) assert.match(r, /: (UBL|CII): valid/, r);
    // The batch says what the script says, on the PDF of the first document.
    const i = labels.findIndex((l) => l.endsWith(' pdf'));
    assert.equal(verdicts[i], await validateOne(files[i]!, xrechnung), labels[i]);
    return results;
  }

  it('with a buyer reference: UBL, CII and the PDF of every kind pass EN 16931 and XRechnung 3.0', {
    timeout: 900_000,
  }, async () => {
    const client = await makeClient(api, {
      buyer_reference: '04011000-1234512345-06',
      email: 'rechnung@amt.example',
    });
    const eu = await makeClient(api, {
      buyer_reference: '991-01234-44',
      country_code: 'AT',
      vat_id: 'ATU12345678',
      street: 'Ring 1',
      zip: '1010',
      city: 'Wien',
    });
    const results = await validateAll(await bookEveryKind(client, eu, 'AE'), true);
    assert.equal(results.length, 7 * 3);
  });

  it('without a buyer reference: UBL, CII and the PDF of every kind pass EN 16931', {
    timeout: 900_000,
  }, async () => {
    const client = await makeClient(api, { language: 'en' });
    const eu = await makeClient(api, {
      country_code: 'FR',
      vat_id: 'FR12345678901',
      street: '1 rue de Rivoli',
      zip: '75001',
      city: 'Paris',
    });
    const results = await validateAll(await bookEveryKind(client, eu, 'K'), false);
    assert.equal(results.length, 7 * 3);
  });
});
