/** Batch PDF processing (spec "Batch PDF processing"): shapes and the batch store (batch.ts), running and cancelling (run.ts). */
export * from "./batch.ts";
export * from "./run.ts";
