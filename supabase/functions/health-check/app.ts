/** GET /functions/v1/health-check (verify_jwt on): {status, timestamp}. */
import { createFunctionApp } from "@shared/http/app.ts";

const app = createFunctionApp("health-check");

app.get("/", (c) => c.json({ status: "healthy", timestamp: new Date().toISOString() }));

export default app;
