import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The conformance tier (`npm run test:conformance`) checks the service against material made by
 * others, which the repository does not ship: official rule sets, test suites and real
 * documents. It reads them from the folder CONFORMANCE_DIR names (default `../shared`, beside
 * the repository). A missing piece fails the tier with what to get and where — never a skip: a
 * conformance run that checked nothing must not pass.
 */
const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

export const CONFORMANCE_DIR = resolve(ROOT, process.env.CONFORMANCE_DIR ?? '../shared');

/** Each piece: its place under CONFORMANCE_DIR and where to get it (pinned upstream versions). */
export const MATERIAL = {
  validator: {
    path: 'validation/validate-einvoice',
    what: 'the EN 16931 and XRechnung 3.0 rule sets compiled to XSLT with their runner script',
    source:
      'validation/: EN16931-{CII,UBL}-validation.xslt from ConnectingEurope/eInvoicing-EN16931 ' +
      '(validation 1.3.x, commit b6c9e06), XRechnung-{CII,UBL}-validation.xslt compiled from ' +
      'itplr-kosit/xrechnung-schematron (commit 3098f3d), and validate-einvoice (runs them with ' +
      'Saxon-HE; apt-get install -y default-jre-headless libsaxonhe-java poppler-utils)',
  },
  xrechnungSuite: {
    path: 'corpus/xrechnung-testsuite',
    what: 'the XML instances of the official XRechnung test suite (86 documents)',
    source: 'corpus/xrechnung-testsuite/: itplr-kosit/xrechnung-testsuite, commit 5528afa (src/test/)',
  },
  bankMt940: {
    path: 'corpus/bank/mt940',
    what: '49 real MT940/MT942 statements of several banks, each with what the reference parser reads (.yml)',
    source:
      'corpus/bank/mt940/: WoLpH/mt940, commit d3f8b44 (mt940_tests/), BSD-3-Clause; the .yml files are ' +
      'that library’s YAML dumps of its parse',
  },
  iso20022: {
    path: 'validation/iso20022',
    what: 'the ISO 20022 schemas of the SEPA payment files (pain.001.001.03/09, pain.008.001.02/08)',
    source: 'validation/iso20022/: raphaelm/python-sepaxml, commit 0728809 (sepaxml/schemas/), MIT',
  },
} as const;

export type Piece = keyof typeof MATERIAL;

/** The absolute path of a piece; throws, naming what is missing and where to get it. */
export function material(piece: Piece): string {
  const { path, what, source } = MATERIAL[piece];
  const full = join(CONFORMANCE_DIR, path);
  if (!existsSync(full)) {
    throw new Error(
      `conformance material missing: ${what} is not at ${full}.\n` +
        `Get ${source}, and point CONFORMANCE_DIR at the folder that holds it (now ${CONFORMANCE_DIR}).`,
    );
  }
  return full;
}
