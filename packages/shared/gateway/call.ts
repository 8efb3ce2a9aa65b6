/**
 * ai-gateway's request as the AI backend call it becomes: the action must be in the map (400
 * unknown_action listing them), the payload may hold only the action's keys (400
 * validation_failed naming them) and must fill its path parameters (400 validation_failed naming
 * the field). The function checks the action's access between `gatewayAction` and `backendCall`.
 */
import { DomainError } from "../errors.ts";
import { describeIssues } from "../http/validate.ts";
import { type ActionSpec, GATEWAY_ACTIONS, UPLOAD_ASYNC } from "./actions.ts";
import { unknownPayloadKeys } from "./payloads.ts";
import { buildBackendRequest, PayloadError } from "./request.ts";

/** What the gateway sends to the AI backend. */
export interface BackendCall {
  method: string;
  path: string;
  body: BodyInit | null;
  contentType: string;
}

export function gatewayAction(action: string): ActionSpec {
  const spec = GATEWAY_ACTIONS[action];
  if (!spec) {
    throw DomainError.invalid(`Unknown action: ${action}`, {
      available_actions: Object.keys(GATEWAY_ACTIONS),
    }, "unknown_action");
  }
  return spec;
}

export function backendCall(action: string, spec: ActionSpec, payload: Record<string, unknown>): BackendCall {
  const unknown = unknownPayloadKeys(action, payload);
  if (unknown.length > 0) {
    const issues = [
      {
        code: "unrecognized_keys" as const,
        keys: unknown,
        path: [],
        message: "Unrecognized keys",
        input: payload,
      },
    ];
    throw DomainError.invalid(
      `Invalid payload of ${action}: ${describeIssues(issues)}`,
      issues,
      "validation_failed",
    );
  }
  let request;
  try {
    request = buildBackendRequest(spec, payload);
  } catch (err) {
    if (!(err instanceof PayloadError)) throw err;
    throw DomainError.invalid(`Invalid payload for ${action}: ${err.message}`, [
      { path: ["payload", err.field], message: err.message },
    ], "validation_failed");
  }
  return {
    method: request.method,
    path: request.path,
    body: request.body === null ? null : JSON.stringify(request.body),
    contentType: "application/json",
  };
}

/** A multipart upload goes to the backend's upload-async as sent. */
export function uploadCall(body: ArrayBuffer, contentType: string): BackendCall {
  return { method: UPLOAD_ASYNC.method, path: UPLOAD_ASYNC.path, body, contentType };
}
