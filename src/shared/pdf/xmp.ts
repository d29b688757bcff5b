/**
 * XMP for Factur-X 1.0: PDF/A only allows custom metadata properties that are described by a
 * PDF/A extension schema in the same packet, so the fx: properties come with their description.
 * pdfkit adds the pdfaid (part 3, conformance B), dc:title, xmp and pdf blocks itself.
 */
export const FACTURX_NS = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

const PROPERTIES: [name: string, description: string][] = [
  ['DocumentFileName', 'The name of the embedded XML document'],
  ['DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER'],
  ['Version', 'The actual version of the standard applying to the embedded XML document'],
  ['ConformanceLevel', 'The conformance level of the embedded XML document'],
];

export interface FacturXXmpOptions {
  fileName: string;
  /** Factur-X names it "EN 16931"; ZUGFeRD 2.x readers accept the same value. */
  conformanceLevel: string;
  version?: string;
  documentType?: string;
}

export function facturXXmp(opts: FacturXXmpOptions): string {
  const properties = PROPERTIES.map(
    ([name, description]) => `
              <rdf:li rdf:parseType="Resource">
                <pdfaProperty:name>${name}</pdfaProperty:name>
                <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                <pdfaProperty:category>external</pdfaProperty:category>
                <pdfaProperty:description>${description}</pdfaProperty:description>
              </rdf:li>`,
  ).join('');
  return `
        <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"
            xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#"
            xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
          <pdfaExtension:schemas>
            <rdf:Bag>
              <rdf:li rdf:parseType="Resource">
                <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                <pdfaSchema:namespaceURI>${FACTURX_NS}</pdfaSchema:namespaceURI>
                <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                <pdfaSchema:property>
                  <rdf:Seq>${properties}
                  </rdf:Seq>
                </pdfaSchema:property>
              </rdf:li>
            </rdf:Bag>
          </pdfaExtension:schemas>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:fx="${FACTURX_NS}">
          <fx:DocumentType>${escapeXml(opts.documentType ?? 'INVOICE')}</fx:DocumentType>
          <fx:DocumentFileName>${escapeXml(opts.fileName)}</fx:DocumentFileName>
          <fx:Version>${escapeXml(opts.version ?? '1.0')}</fx:Version>
          <fx:ConformanceLevel>${escapeXml(opts.conformanceLevel)}</fx:ConformanceLevel>
        </rdf:Description>`;
}

export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * pdfkit interpolates Title/Author/Subject unescaped into the XMP packet but writes the same
 * value into the Info dictionary through valueOf(). PDF/A requires both to agree, so the XMP
 * side gets an escaped toString() while the Info dictionary keeps the raw text.
 */
export class XmpSafeString extends String {
  override toString(): string {
    return escapeXml(this.valueOf());
  }

  // pdfkit's Unicode detection calls charCodeAt, which would otherwise read the escaped text.
  override charCodeAt(index: number): number {
    return this.valueOf().charCodeAt(index);
  }
}
