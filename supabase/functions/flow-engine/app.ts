/**
 * POST /functions/v1/flow-engine (spec "Flow engine"): {action, ...}
 *   execute-flow {flow_id, trigger_data}  a real run: every action fires; a flow_runs row
 *   test-flow {flow_id, trigger_data}     a dry run: conditions evaluated, templates resolved,
 *                                         nothing sent, charged or written outside flow_runs;
 *                                         the resolved config of every node is returned
 *   trigger-event {event_type, event_data, workspace_id?}  runs the workspace's enabled flows
 *                                         with that event trigger
 *   save-flow {name, graph, enabled?, flow_id?, workspace_id?}  validates and stores a flow
 *   {flow_id, trigger_data}               the short form of execute-flow
 * A signed-in user with a role in the flow's workspace, or the service role. Domain:
 * packages/shared/flows.
 */
import { createRoute } from "@hono/zod-openapi";
import { createFunctionApp } from "@shared/http/app.ts";
import { limitBody } from "@shared/http/body_limit.ts";
import { errorResponses, jsonBody, okJson } from "@shared/http/openapi.ts";
import { signedIn } from "@shared/auth/context.ts";
import { FlowEngineRequest } from "@shared/flows/mod.ts";
import { runAction } from "./actions.ts";

const MAX_BODY_BYTES = 512 * 1024;
const app = createFunctionApp("flow-engine");
app.use("*", signedIn);

app.openapi(
  createRoute({
    method: "post",
    path: "/",
    tags: ["Flow engine"],
    summary: "Run, dry-run or save a flow, or trigger a flow event",
    middleware: limitBody(MAX_BODY_BYTES),
    request: jsonBody(FlowEngineRequest),
    responses: { ...okJson("The action's result, {success: true, ...}"), ...errorResponses },
  }),
  async (c) => c.json(await runAction(c, c.req.valid("json")), 200),
);

export default app;
