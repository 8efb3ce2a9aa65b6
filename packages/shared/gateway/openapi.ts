/**
 * ai-gateway's JSON request body as API docs show it (issue 36): one schema per action of the
 * action map, `{action: "<name>", payload: <that action's payload schema>}` (payloads.ts), in a
 * oneOf discriminated by `action`, so Swagger UI and Redoc list every action with its payload.
 * Each action's description gives its AI backend route, who may call it and its price (the
 * cost key and the credits the migrations seed it with: credits/ledger.ts SEEDED_CREDITS).
 */
import { COST_KEYS, SEEDED_CREDITS } from "../credits/ledger.ts";
import { type ActionSpec, GATEWAY_ACTIONS } from "./actions.ts";
import { GATEWAY_PAYLOADS, type JsonSchema } from "./payloads.ts";

const credits = (n: number) => `${n} credit${n === 1 ? "" : "s"}`;

/** "POST /api/kb/documents (backend). Billable: document_processing, 2 credits." and so on. */
export function actionDescription(spec: ActionSpec): string {
  const parts = [`${spec.method} ${spec.path} on the AI backend.`];
  if (spec.access === "platform_admin") parts.push("Platform admins only.");
  if (spec.cost === undefined) {
    parts.push("Free.");
  } else if (typeof spec.cost === "string") {
    parts.push(
      `Billable: ${spec.cost}, ${credits(SEEDED_CREDITS[spec.cost])}` +
        `${spec.billingNote ? ` ${spec.billingNote}` : ""}.`,
    );
  } else {
    const keys = COST_KEYS.filter((k) => spec.billingNote?.includes(k));
    parts.push(
      `Billable: ${spec.billingNote} (${keys.map((k) => `${k} ${credits(SEEDED_CREDITS[k])}`).join(", ")}).`,
    );
  }
  if (spec.unwrap) parts.push(`data is the ${spec.unwrap} itself.`);
  return parts.join(" ");
}

/** The `{action, payload}` body of one action. */
export function actionBodySchema(action: string): JsonSchema {
  const spec = GATEWAY_ACTIONS[action];
  return {
    title: action,
    description: actionDescription(spec),
    type: "object",
    properties: {
      action: { type: "string", const: action },
      payload: GATEWAY_PAYLOADS[action] ?? { type: "object", additionalProperties: false },
    },
    required: ["action"],
    additionalProperties: false,
  };
}

/** The component name of an action's body (`GatewayAction_kb_search`). */
export const actionComponent = (action: string) => `GatewayAction_${action}`;

/**
 * The gateway's JSON body: one of the actions' bodies, chosen by `action` (each body is the
 * component actionComponent(action): register actionBodySchema(action) under that name).
 */
export function gatewayBodySchema(): JsonSchema {
  const actions = Object.keys(GATEWAY_ACTIONS);
  const ref = (action: string) => `#/components/schemas/${actionComponent(action)}`;
  return {
    description: "{action, payload}: the action names the AI backend route; the payload carries its " +
      "path parameters by name and its body (or, for GET, its query). A payload key the action does " +
      "not take is a 400 naming it, before anything is charged.",
    oneOf: actions.map((action) => ({ $ref: ref(action) })),
    discriminator: {
      propertyName: "action",
      mapping: Object.fromEntries(actions.map((action) => [action, ref(action)])),
    },
  };
}
