import assert from "node:assert/strict";
import { getPlatform, platformTest } from "./helpers/platform.ts";
platformTest("health", async (p) => {
  const r = await fetch(`${p.url}/functions/v1/health-check`, {
    headers: { Authorization: `Bearer ${p.config.anonKey}` },
  });
  assert.equal(r.status, 200);
  await r.body?.cancel();
});
void getPlatform;
