/**
 * Row-level security and constraints of the quotes schema, tried directly through /rest/v1 (what
 * a frontend can do without the functions) and as SQL under the API roles.
 */
import assert from "node:assert/strict";
import { anonClient, createUser, createWorkspace, platformTest } from "../helpers/platform.ts";
import { sqlAs, sqlState } from "../helpers/sql.ts";
import { seedQuote } from "./helpers.ts";

platformTest("quotes: members read, viewers cannot write, outsiders and anon see nothing", async (p) => {
  const owner = await createUser(p, "rq-owner");
  const viewer = await createUser(p, "rq-viewer");
  const outsider = await createUser(p, "rq-out");
  const ws = await createWorkspace(p, owner.id, { [viewer.id]: "viewer" });
  const q = await seedQuote(p, ws, owner.id);
  const seen = await viewer.client.from("quotes").select("id, quote_number").eq("id", q.id);
  assert.deepEqual(seen.data, [{ id: q.id, quote_number: q.quote_number }]);
  assert.deepEqual((await outsider.client.from("quotes").select("id").eq("id", q.id)).data, []);
  const anon = await anonClient(p).from("quotes").select("id");
  assert.equal(anon.status, 401, "anon has no grant on quotes");
  const byViewer = await viewer.client.from("quotes").insert({ workspace_id: ws, customer_name: "x" });
  assert.equal(byViewer.status, 403);
  const made = await owner.client.from("quotes").insert({ workspace_id: ws, customer_name: "Ada" }).select()
    .single();
  assert.equal(made.error, null);
  assert.match(made.data.quote_number, /^Q-\d{4}-\d{6}$/);
  assert.equal(made.data.created_by, owner.id);
  const dup = await owner.client.from("quotes").insert({
    workspace_id: ws,
    quote_number: made.data.quote_number,
  });
  assert.equal(dup.status, 409, "quote numbers are unique per workspace");
  const forgedPdf = await owner.client.from("quotes").update({ pdf_storage_path: "x/y.pdf" }).eq("id", q.id);
  assert.ok(forgedPdf.error, "the PDF columns belong to generate-quote-pdf");
  const moved = await owner.client.from("quotes").update({ workspace_id: ws }).eq("id", q.id);
  assert.ok(moved.error, "a quote never changes workspace");
});

platformTest("quote requests: own name only, quote of the named workspace only", async (p) => {
  const owner = await createUser(p, "rr-owner");
  const member = await createUser(p, "rr-member");
  const other = await createUser(p, "rr-other");
  const ws = await createWorkspace(p, owner.id, { [member.id]: "member" });
  const otherWs = await createWorkspace(p, other.id, { [member.id]: "member" });
  const q = await seedQuote(p, ws, owner.id);
  const mismatch = await member.client.from("quote_requests").insert({
    quote_id: q.id,
    workspace_id: otherWs,
  });
  assert.equal(mismatch.status, 409, "the quote must belong to the request's workspace");
  const forged = await member.client.from("quote_requests").insert({
    quote_id: q.id,
    workspace_id: ws,
    user_id: other.id,
  });
  assert.ok(forged.error, "user_id is not a client column");
  const ok = await member.client.from("quote_requests").insert({ quote_id: q.id, workspace_id: ws }).select()
    .single();
  assert.equal(ok.error, null);
  assert.equal(ok.data.user_id, member.id);
  // The owner (workspace admin) sees it; another member of a different workspace does not.
  assert.equal((await owner.client.from("quote_requests").select("id").eq("id", ok.data.id)).data?.length, 1);
  assert.equal((await other.client.from("quote_requests").select("id").eq("id", ok.data.id)).data?.length, 0);
  const state = await sqlState(() =>
    sqlAs(
      p,
      { role: "authenticated", userId: member.id },
      `delete from public.quote_requests where id = $1`,
      [
        ok.data.id,
      ],
    )
  );
  assert.equal(state, "42501", "requests are not deleted by clients");
});
