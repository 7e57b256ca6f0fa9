/** The answers of the HTTP API live in the operation table (src/contract/answers.ts); tests read them here. */
export * from "../contract/answers";
