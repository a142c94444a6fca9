import type { Severity } from '../model/severity.js';

export interface SeverityStyle {
  /** Four cells wide, so feed columns line up. */
  label: string;
  color: string;
  bold: boolean;
}

// Colour carries severity at a glance; the label carries it for monochrome
// terminals and screen readers.
const STYLES: Record<Severity, SeverityStyle> = {
  critical: { label: 'CRIT', color: 'magenta', bold: true },
  error: { label: 'ERR ', color: 'red', bold: false },
  warning: { label: 'WARN', color: 'yellow', bold: false },
  info: { label: 'INFO', color: 'blue', bold: false },
};

export function severityStyle(severity: Severity): SeverityStyle {
  return STYLES[severity];
}
