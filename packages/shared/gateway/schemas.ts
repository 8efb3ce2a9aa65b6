/**
 * The ai-gateway's request and answer shapes (spec "AI gateway"), for its route table and its
 * OpenAPI document: the {action, payload} body, the multipart upload form, and the answers
 * ({success: true, data} or {success: false, error, code, details?, billing?}).
 */
import { z } from "zod";

/**
 * Strict: a key besides action and payload is a 400 naming it (`unknown field "workspace_id"`).
 * The payload's keys are checked per action (payloads.ts); the API docs show the body as one
 * schema per action (openapi.ts).
 */
export const GatewayBody = z.strictObject({
  action: z.string().min(1).meta({ description: "An action of the gateway table, e.g. kb_search" }),
  payload: z.record(z.string(), z.unknown()).default({}),
});

/**
 * The upload form, as an OpenAPI schema object rather than zod: the gateway documents it but
 * does not parse it, so the raw multipart body goes to the backend exactly as it came.
 */
export const UploadForm = {
  type: "object" as const,
  required: ["file"],
  properties: {
    file: { type: "string" as const, format: "binary", description: "The document (PDF, up to 50 MB)" },
    workspace_id: { type: "string" as const, format: "uuid" },
    title: { type: "string" as const },
    defer_processing: {
      type: "string" as const,
      enum: ["true", "false"],
      description: "`true`: keep the job pending for resume or a pdf-batch-process batch. " +
        "Default: the pipeline runs it at once; poll GET job-status/{job_id}.",
    },
  },
};

export const GatewaySuccess = z.object({ success: z.literal(true), data: z.unknown() });

export const GatewayFailure = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.string(),
  details: z.unknown().optional(),
  /** Present when the call was charged and then refunded (or the refund failed). */
  billing: z.looseObject({ refunded: z.number() }).optional(),
});

/** A documented JSON answer of the gateway: success for 2xx, failure otherwise. */
export const gatewayAnswer = (status: number, description: string) => ({
  [status]: {
    description,
    content: { "application/json": { schema: status < 300 ? GatewaySuccess : GatewayFailure } },
  },
});

/**
 * The gateway's own failures (the four every route can give), in words like http/openapi.ts's
 * errorResponses, so that a handler's typed answers are not checked against them; the shape is
 * GatewayFailure, like the backend's failures the gateway passes through.
 */
export const gatewayErrorResponses = {
  400: {
    description:
      "Unknown action ({success: false, error, code: unknown_action, details.available_actions}) " +
      "or bad body or payload (code validation_failed, details naming the fields; an unknown key: " +
      '`unknown field "name"`)',
  },
  401: { description: "Missing or invalid authentication: {success: false, error, code: unauthorized}" },
  403: { description: "The action needs the platform admin role: {success: false, error, code: forbidden}" },
  404: { description: "Not found, or not the caller's: {success: false, error, code: not_found}" },
};
