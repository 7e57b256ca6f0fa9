/** Asks the Node-side validator (started in global setup) whether a document is valid OpenAPI. */
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** POST /validate an OpenAPI document: { valid, version, errors } (test/support/node/openapi-validator.ts). */
    openApiValidatorUrl: string;
  }
}

export interface OpenApiVerdict {
  valid: boolean;
  version: string;
  errors: unknown;
}

export async function validateOpenApi(document: unknown): Promise<OpenApiVerdict> {
  const res = await fetch(`${inject("openApiValidatorUrl")}/validate`, {
    method: "POST",
    body: JSON.stringify(document),
  });
  if (res.status !== 200) throw new Error(`validator answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as OpenApiVerdict;
}
