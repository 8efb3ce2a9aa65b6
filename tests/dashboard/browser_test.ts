/// <reference lib="dom" />
/**
 * The dashboard in a real browser: Debian's chromium driven by puppeteer-core against an
 * in-process seeded platform (the seed's admin@example.com and "Demo Catalog", plus what the
 * test adds: a user, a bucket with an image and a PDF, a pgmq message, price_lookup log rows, an
 * AI job with stage checkpoints, a flow run with node results, a messaging bulk half sent, a cron
 * job posting to a local target).
 * One browser for every page; each page reads data, performs one write through the page's own
 * controls, and the test checks what the page shows then (and the database behind it).
 * Skipped, saying so, when /usr/bin/chromium is absent (.ci/run installs it).
 * `-- --screenshots=<dir>` saves a PNG per page.
 */
import assert from "node:assert/strict";
import puppeteer, { type Page } from "puppeteer-core";
import { startEphemeralPlatform } from "../../fixtures/platform.ts";
import { createUser, serviceClient } from "../helpers/platform.ts";
import { LogBook } from "../../stack/dashboard/log_book.ts";
import { startDashboard } from "../../stack/dashboard/server.ts";
import { aiBackendOf } from "../../stack/ai-backend/part.ts";

const CHROMIUM = "/usr/bin/chromium";
const chromium = await Deno.stat(CHROMIUM).then(() => true, () => false);
if (!chromium) {
  console.warn(`dashboard browser test skipped: ${CHROMIUM} is absent (apt-get install chromium)`);
}
const shots = Deno.args.find((a) => a.startsWith("--screenshots="))?.slice("--screenshots=".length);

// A 1x1 PNG and a one-page PDF, made here.
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

async function pdfBytes(): Promise<Uint8Array> {
  const { PDFDocument } = await import("pdf-lib");
  const doc = await PDFDocument.create();
  doc.addPage([200, 100]).drawText("dashboard preview", { x: 10, y: 50, size: 12 });
  return await doc.save();
}

Deno.test({
  name: "dashboard pages in chromium: each reads, writes once and shows the result",
  ignore: !chromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const t0 = performance.now();
    const book = new LogBook();
    const p = await startEphemeralPlatform({
      log: book.add,
      logRequests: true,
      functionConsole: book.console,
    });
    const dash = startDashboard(p, { book });
    // What the cron job posts to (pg_net): answers {"pong": <body>}.
    const target = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (req) => Response.json({ pong: await req.json() }),
    );
    const targetUrl = `http://127.0.0.1:${target.addr.port}`;
    const demo = "00000000-0000-4000-8000-0000000000a1";
    let flowId = "", jobId = "";
    const admin = "00000000-0000-4000-8000-000000000001";
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    });
    try {
      const svc = serviceClient(p);
      const user = await createUser(p, "dash");
      const bucket = `dash-${crypto.randomUUID().slice(0, 8)}`;
      assert.equal((await svc.storage.createBucket(bucket, { public: false })).error, null);
      for (
        const [path, body, type] of [["pics/dot.png", PNG, "image/png"], [
          "doc.pdf",
          await pdfBytes(),
          "application/pdf",
        ]] as const
      ) {
        const up = await svc.storage.from(bucket).upload(path, body, { contentType: type });
        assert.equal(up.error, null);
      }
      await p.db.query(
        `insert into public.agent_tool_call_logs (tool_name, zero_result, user_id, workspace_id, agent_id)
         values ('price_lookup', true, $1, $2, 'main'), ('price_lookup', false, $1, $2, 'main')`,
        ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-0000000000a1"],
      );

      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 900 });
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        d.accept();
      });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await browser.defaultBrowserContext().overridePermissions(dash.url, [
        "clipboard-read",
        "clipboard-write",
        "clipboard-sanitized-write",
      ]);
      await page.goto(`${dash.url}/#tables`);

      const visit = async (name: string) => {
        await page.evaluate((n) => (location.hash = n), name);
        await page.waitForFunction((n) => document.body.dataset.loaded === n, {}, name);
      };
      const shot = async (name: string) => {
        if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: false });
      };
      const text = (sel: string) => page.$eval(sel, (e) => (e as HTMLElement).innerText);
      const waitText = (sel: string, want: string, timeout = 10_000) =>
        page.waitForFunction(
          (s, w) => (document.querySelector(s) as HTMLElement | null)?.innerText.includes(w),
          { timeout },
          sel,
          want,
        );
      // Clicks the first rendered row of `grid` showing `want` (waiting for it to render).
      const clickRow = async (grid: string, want: string) => {
        await page.waitForFunction(
          (g, w) => {
            const row = [...document.querySelectorAll(`${g} .tabulator-row`)]
              .find((r) => (r as HTMLElement).innerText.includes(w));
            (row?.querySelector(".tabulator-cell") as HTMLElement | null)?.click();
            return !!row;
          },
          { timeout: 10_000 },
          grid,
          want,
        );
      };
      // Clicks the row of `grid` whose `field` cell reads exactly `want`.
      const clickExact = async (grid: string, field: string, want: string) => {
        await page.waitForFunction(
          (g, f, w) => {
            const c = [...document.querySelectorAll(`${g} .tabulator-cell[tabulator-field="${f}"]`)]
              .find((e) => (e as HTMLElement).innerText.trim() === w) as HTMLElement | undefined;
            c?.click();
            return !!c;
          },
          { timeout: 10_000 },
          grid,
          field,
          want,
        );
      };
      const status = async (want: string) => await waitText("#status", want);

      await t.step("tables: schemas, RLS policies, rows; edit a cell", async () => {
        await page.waitForFunction(() => document.body.dataset.loaded === "tables");
        await page.waitForSelector("#tables-list .tabulator-row");
        await page.type("#tables-list .tabulator-col[tabulator-field=name] input", "workspaces");
        await clickRow("#tables-list", "workspaces");
        await waitText("#table-title", "public.workspaces (RLS on)");
        await waitText("#policies", "workspaces");
        await waitText("#rows", "Demo Catalog");
        // Filter by name, then edit it.
        await page.type("#rows .tabulator-col[tabulator-field=name] input", "Demo");
        await page.keyboard.press("Enter");
        await page.waitForFunction(() => document.querySelectorAll("#rows .tabulator-row").length === 1);
        const cell = await page.$("#rows .tabulator-row .tabulator-cell[tabulator-field=name]");
        await cell!.click({ count: 2 });
        await page.$eval(
          "#rows .tabulator-cell[tabulator-field=name] input",
          (e) => ((e as HTMLInputElement).value = "Demo Catalog (edited)"),
        );
        await page.keyboard.press("Enter");
        await status("updated workspaces.name");
        const r = await p.db.query<{ name: string }>(
          `select name from public.workspaces where id = '00000000-0000-4000-8000-0000000000a1'`,
        );
        assert.equal(r.rows[0].name, "Demo Catalog (edited)");
        await page.click("#rows-reload");
        await waitText("#rows", "Demo Catalog (edited)");
        // Insert: a flow (its run is seeded for the operations page).
        await page.$eval("#tables-list .tabulator-col[tabulator-field=name] input", (e) => {
          (e as HTMLInputElement).value = "";
        });
        await page.type("#tables-list .tabulator-col[tabulator-field=name] input", "flows");
        await clickExact("#tables-list", "name", "flows");
        await waitText("#table-title", "public.flows (RLS on)");
        await page.click("#row-insert");
        await page.waitForSelector("#insert-box textarea", { visible: true });
        await page.$eval("#insert-json", (e, ws) => {
          (e as HTMLTextAreaElement).value = JSON.stringify({
            workspace_id: ws,
            name: "Dashboard flow",
            trigger_type: "manual",
          });
        }, demo);
        await page.click("#insert-go");
        await status("inserted a row into flows");
        await waitText("#rows", "Dashboard flow");
        const flow = await p.db.query<{ id: string }>(
          `select id from public.flows where name = 'Dashboard flow'`,
        );
        assert.equal(flow.rows.length, 1);
        flowId = flow.rows[0].id;
        await shot("tables");
      });

      await t.step("sql: run a write, see the results, an error and the history", async () => {
        await visit("sql");
        await page.evaluate(() =>
          // deno-lint-ignore no-explicit-any
          (window as any).dashboardSqlEditor.setValue(
            "create table public.dashboard_probe (id int primary key, note text);\n" +
              "insert into public.dashboard_probe values (1, 'tegel') returning id, note",
          )
        );
        await page.click("#sql-run");
        await waitText("#sql-info", "1 row(s)");
        await waitText("#sql-results", "tegel");
        // deno-lint-ignore no-explicit-any
        await page.evaluate(() => (window as any).dashboardSqlEditor.setValue("select * from no_such_table"));
        await page.click("#sql-run");
        await waitText("#sql-error", "no_such_table");
        await waitText("#sql-history", "create table public.dashboard_probe");
        await shot("sql");
      });

      await t.step("auth: search, create, ban, magic link; workspaces, role and credits", async () => {
        await visit("auth");
        await page.type("#user-search", "admin@example");
        await page.click("#user-search-go");
        await clickRow("#users", "admin@example.com");
        await waitText("#user-role", "admin");
        await waitText("#user-workspaces", "Demo Catalog");
        const email = `made-${crypto.randomUUID().slice(0, 6)}@example.com`;
        await page.$eval("#user-search", (e) => ((e as HTMLInputElement).value = ""));
        await page.type("#user-email", email);
        await page.type("#user-password", "password-123");
        await page.click("#user-create");
        await status(`created ${email}`);
        await clickRow("#users", email);
        await waitText("#user-credits", "");
        await page.click("#user-ban");
        await status(`banned ${email}`);
        await page.waitForFunction(() =>
          !document.querySelector("#user-banned")?.textContent?.includes("not")
        );
        await page.click("#user-magic");
        await page.waitForSelector("#magic-link");
        assert.match(await page.$eval("#magic-link", (e) => (e as HTMLInputElement).value), /token=/);
        const banned = await p.db.query<{ b: boolean }>(
          `select banned_until > now() as b from auth.users where email = $1`,
          [email],
        );
        assert.equal(banned.rows[0].b, true);
        await shot("auth");
        await page.click("#user-delete");
        await status(`deleted ${email}`);
        assert.ok(dialogs.some((d) => d.includes(`Delete user ${email}`)));
      });

      await t.step("storage: buckets, folders, previews, copy a signed URL; upload, delete", async () => {
        await visit("storage");
        await clickRow("#buckets", bucket);
        await clickRow("#objects", "pics");
        await clickRow("#objects", "dot.png");
        await page.waitForSelector("#preview-image");
        await page.waitForFunction(() =>
          (document.querySelector("#preview-image") as HTMLImageElement).naturalWidth === 1
        );
        assert.match(
          await page.$eval("#signed-url", (e) => (e as HTMLInputElement).value),
          /\/object\/sign\//,
        );
        const input = await page.$("#upload-file");
        const file = await Deno.makeTempFile({ suffix: ".txt" });
        await Deno.writeTextFile(file, "hello from the dashboard");
        // deno-lint-ignore no-explicit-any
        await (input as any).uploadFile(file);
        await page.click("#upload-go");
        await status("uploaded pics/");
        await waitText("#objects", file.split("/").pop()!);
        const { data } = await svc.storage.from(bucket).download(`pics/${file.split("/").pop()}`);
        assert.equal(await data!.text(), "hello from the dashboard");
        // Copy the image's signed URL: the clipboard has it, and it serves the image.
        await clickRow("#objects", "dot.png");
        await page.waitForSelector("#preview-image");
        await page.click("#copy-url");
        await status("signed URL copied");
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        assert.equal(copied, await page.$eval("#signed-url", (e) => (e as HTMLInputElement).value));
        const img = await fetch(copied);
        assert.equal(img.status, 200);
        assert.deepEqual(new Uint8Array(await img.arrayBuffer()), PNG);
        await page.click("#folder-up");
        await clickRow("#objects", "doc.pdf");
        await page.waitForSelector("#preview-pdf");
        await shot("storage");
        // Delete the PDF, confirmed.
        await page.click("#object-delete");
        await status("deleted doc.pdf");
        assert.ok(dialogs.some((d) => d === `Delete ${bucket}/doc.pdf?`));
        await page.waitForFunction(() =>
          !document.querySelector("#objects")!.textContent!.includes("doc.pdf")
        );
        const gone = await svc.storage.from(bucket).download("doc.pdf");
        assert.ok(gone.error, "doc.pdf is gone");
      });

      await t.step("functions: verify_jwt, invoke, invocations and their log lines", async () => {
        await visit("functions");
        await clickRow("#functions", "health-check");
        await page.select("#fn-method", "GET");
        await page.click("#fn-invoke");
        await waitText("#fn-response", "200");
        await waitText("#invocations", "service_role");
        const id = (await text("#fn-response")).match(/request ([0-9a-f-]+)/)![1];
        await clickRow("#invocations", id);
        await waitText("#request-log", `req=${id}`);
        // The AI backend's routes, with the request made to it (its own port, not the gateway).
        const ai = await fetch(`${aiBackendOf(p).url}/api/kb/health`, {
          headers: { "x-request-id": "dash-ai-req-1", authorization: `Bearer ${p.config.serviceRoleKey}` },
        });
        await ai.body?.cancel();
        await visit("tables");
        await visit("functions");
        await waitText("#ai-routes", "/api/rag/chat");
        await clickExact("#ai-routes", "path", "/api/kb/health");
        await waitText("#ai-requests-title", "GET /api/kb/health");
        await clickRow("#ai-requests", "dash-ai-req-1");
        await waitText("#request-log", `ai-backend GET /api/kb/health ${ai.status}`);
        await shot("functions");
      });

      await t.step("cron and queues: jobs with next run, pause one; queue depth, send", async () => {
        await visit("cron");
        const active = async () =>
          (await p.db.query<{ active: boolean }>(`select active from cron.job order by jobid limit 1`))
            .rows[0].active;
        const before = await active();
        await page.waitForSelector("#cron-jobs .tabulator-row button.toggle");
        await page.click("#cron-jobs .tabulator-row button.toggle");
        await status(before ? "paused" : "resumed");
        assert.equal(await active(), !before);
        // Run now: the run's row shows its pg_net request's response.
        await p.db.query(
          `select cron.schedule('dash-ping', '0 3 1 1 *',
             $$ select net.http_post(url := '${targetUrl}/ping', body := '{"from":"cron"}'::jsonb) $$)`,
        );
        await page.click("#cron-reload");
        await page.waitForFunction(() => {
          const row = [...document.querySelectorAll("#cron-jobs .tabulator-row")]
            .find((r) => (r as HTMLElement).innerText.includes("dash-ping"));
          (row?.querySelector("button.run-now") as HTMLElement | null)?.click();
          return !!row;
        });
        await status("dash-ping: ran now");
        await page.waitForFunction(async () => {
          (document.querySelector("#cron-reload") as HTMLElement).click();
          await new Promise((r) => setTimeout(r, 300));
          return (document.querySelector("#cron-runs") as HTMLElement).innerText.includes('"pong"');
        }, { timeout: 15_000 });
        await waitText("#cron-runs", '{"pong":{"from":"cron"}}');
        const runRow = await page.$$eval("#cron-runs .tabulator-row", (rows) => {
          const row = rows.find((r) => (r as HTMLElement).innerText.includes("dash-ping"))!;
          const at = (f: string) => (row.querySelector(`[tabulator-field=${f}]`) as HTMLElement).innerText;
          return { status: at("status"), response: at("response_status"), body: at("response_body") };
        });
        assert.deepEqual(runRow, { status: "succeeded", response: "200", body: '{"pong":{"from":"cron"}}' });
        const queues = await p.db.query<{ queue_name: string }>(
          `select queue_name from pgmq.list_queues() limit 1`,
        );
        const q = queues.rows[0].queue_name;
        await clickRow("#queues", q);
        await page.click("#queue-send");
        await status(`to ${q}`);
        await waitText("#queue-messages", "dashboard");
        await shot("cron");
      });

      await t.step("realtime: join, broadcast, presence, postgres_changes of a published table", async () => {
        await visit("realtime");
        await page.$eval("#rt-table", (e) => ((e as HTMLInputElement).value = "ai_jobs"));
        await page.click("#rt-join");
        await waitText("#rt-joined", "joined: room-1");
        await page.click("#rt-send");
        await waitText("#rt-events", '{"from":"dashboard"}');
        await page.click("#rt-track");
        await waitText("#rt-events", "join");
        await waitText("#rt-events", '"key":"dashboard"');
        const job = await p.db.query<{ id: string }>(
          `insert into public.ai_jobs (user_id, workspace_id, job_type, status, current_stage, progress, filename,
             heartbeat_at, started_at)
           values ($1, $2, 'document_upload', 'processing', 'chunking', 60, 'dash-catalogue.pdf', now(), now())
           returning id`,
          [admin, demo],
        );
        jobId = job.rows[0].id;
        await waitText("#rt-events", "INSERT");
        await waitText("#rt-events", "dash-catalogue.pdf");
        await shot("realtime");
      });

      await t.step("operations: price audit, ledger, jobs, flows, bulks; grant credits", async () => {
        await p.db.query(
          `insert into public.ai_job_checkpoints (job_id, stage, output, progress)
           values ($1, 'extract', '{}', 30), ($1, 'classify', '{}', 45)`,
          [jobId],
        );
        const steps = [
          { node_id: "start", node_type: "manual_trigger", status: "completed", duration_ms: 0, output: {} },
          {
            node_id: "fetch-prices",
            node_type: "http_request",
            status: "completed",
            duration_ms: 42,
            output: { status: 200, body: { tiles: 3 } },
          },
          {
            node_id: "notify",
            node_type: "send_email",
            status: "failed",
            duration_ms: 5,
            error: "no recipient",
          },
        ].map((s) => ({ ...s, started_at: new Date().toISOString() }));
        const run = await p.db.query<{ id: string }>(
          `insert into public.flow_runs (flow_id, workspace_id, status, trigger_type, steps, error_node_id,
             error_message, duration_ms, completed_at)
           values ($1, $2, 'failed', 'manual', $3::jsonb, 'notify', 'Node "notify" failed: no recipient', 47, now())
           returning id`,
          [flowId, demo, JSON.stringify(steps)],
        );
        const bulk = await p.db.query<{ id: string }>(
          `insert into public.messaging_bulks (workspace_id, user_id, channel_type, message_type, total, status)
           values ($1, $2, 'sms', 'notification', 4, 'sending') returning id`,
          [demo, admin],
        );
        await p.db.query(
          `insert into public.messaging_bulk_recipients (bulk_id, position, to_number, status)
           values ($1, 0, '+15005550001', 'sent'), ($1, 1, '+15005550002', 'sent'),
                  ($1, 2, '+15005550003', 'failed'), ($1, 3, '+15005550004', 'queued')`,
          [bulk.rows[0].id],
        );
        await visit("ops");
        await waitText("#ops-jobs", "chunking");
        await waitText("#ops-jobs", "60%");
        await waitText("#ops-jobs", "extract 30% → classify 45%");
        await waitText("#ops-bulks", "3/4 (75%)");
        await clickRow("#ops-flows", "Dashboard flow");
        await waitText("#flow-nodes-title", run.rows[0].id);
        await waitText("#flow-nodes", "fetch-prices");
        await waitText("#flow-nodes", '{"body":{"tiles":3},"status":200}'); // jsonb's key order
        await waitText("#flow-nodes", "no recipient");
        assert.equal(await page.$$eval("#flow-nodes .tabulator-row", (r) => r.length), 3);
        await shot("ops");
        await waitText("#audit-lookups", "2");
        await waitText("#audit-zero", "1");
        await waitText("#audit-rate", "0.0%");
        await page.type("#grant-user", user.id);
        await page.click("#grant-go");
        await status("granted 10 credits");
        await waitText("#ops-ledger", "dashboard_grant");
        await shot("ops");
      });

      await t.step("sandbox: captures and the links to its pages", async () => {
        await visit("sandbox");
        await page.waitForSelector("#sandbox-links a");
        const href = await page.$eval("#sandbox-links a", (a) => (a as HTMLAnchorElement).href);
        assert.ok(href.startsWith(p.sandbox!.url));
        await shot("sandbox");
      });
      assert.deepEqual(errors, []);
    } catch (err) {
      if (shots) await (await browser.pages()).at(-1)?.screenshot({ path: `${shots}/failed.png` });
      throw err;
    } finally {
      await browser.close();
      await target.shutdown();
      await dash.stop();
      await p.stop();
      console.log(`dashboard browser test: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  },
});

export type { Page };
