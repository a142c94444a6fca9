// XML 1.0 forbids most control characters even as references; a log line may hold them.
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** Escapes element content. */
export function escapeXmlText(s: string): string {
  return s.replace(NOT_XML_CHAR, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes a double-quoted attribute value; newlines and tabs are kept as references, which attribute normalisation would otherwise turn into spaces. */
export function escapeXmlAttr(s: string): string {
  return escapeXmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
