import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The vendored SARIF 2.1.0 JSON schema, compiled: a validator that returns whether a log is valid and keeps
 * the reasons in `errors`. The schema is draft 2020-12; strictRequired is off because the schema itself
 * lists required properties inside anyOf branches that declare none.
 */
export function sarifSchemaValidator(): ((log: unknown) => boolean) & { errors?: unknown } {
  const Ajv2020 = (require('ajv/dist/2020') as { default: new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } } }).default;
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  (require('ajv-formats') as { default: (a: unknown) => void }).default(ajv);
  return ajv.compile(require('../fixtures/sarif-2.1.0.json') as object);
}
