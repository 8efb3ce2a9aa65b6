/**
 * flow-engine's request bodies (spec "Flow engine"): {action, ...}; the short documented form
 * {flow_id, trigger_data} is execute-flow. Every body is a strict object: a key the action does
 * not declare is a 400 naming it (`unknown field "triger_data"`), never silently ignored.
 */
import { z } from "zod";
import { SaveFlowBody } from "./save.ts";

const TriggerData = z.record(z.string(), z.unknown()).default({});
export const EVENT_TYPE = /^[a-z0-9_.-]{1,100}$/;

const ExecuteFlow = z.strictObject({
  action: z.literal("execute-flow"),
  flow_id: z.uuid(),
  trigger_data: TriggerData,
});
const TestFlow = z.strictObject({
  action: z.literal("test-flow"),
  flow_id: z.uuid(),
  trigger_data: TriggerData,
});
const TriggerEvent = z.strictObject({
  action: z.literal("trigger-event"),
  event_type: z.string().regex(EVENT_TYPE, "lowercase a-z, 0-9, _ . - (1 to 100)"),
  event_data: TriggerData,
  workspace_id: z.uuid().optional(),
});

export const FlowEngineRequest = z.preprocess(
  (b) =>
    b && typeof b === "object" && !Array.isArray(b) && !("action" in b) && "flow_id" in b
      ? { ...b, action: "execute-flow" }
      : b,
  z.discriminatedUnion("action", [ExecuteFlow, TestFlow, TriggerEvent, SaveFlowBody]),
);
export type FlowEngineRequest = z.infer<typeof FlowEngineRequest>;
