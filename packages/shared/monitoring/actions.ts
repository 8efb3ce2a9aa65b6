/**
 * price-monitoring's four actions for one product, after the function authorised the caller in
 * the product's workspace (get_status: any member; the others: owner, admin, member). The
 * product is read as the caller first (`monitoredProduct`: one the caller cannot see is 404),
 * so its workspace is known before anything else.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import type { WorkspaceScope } from "../auth/scope.ts";
import { DomainError } from "../errors.ts";
import { runCheck } from "./check.ts";
import type { PriceMonitoringRequest } from "./schemas.ts";
import { monitoringStatus, startMonitoring, stopMonitoring } from "./settings.ts";

export interface MonitoredProduct {
  id: string;
  workspace_id: string;
  name: string;
}

/** The product as the caller sees it (RLS): 404 when it cannot. */
export async function monitoredProduct(userDb: SupabaseClient, productId: string): Promise<MonitoredProduct> {
  const { data: product, error } = await userDb.from("products").select("id, workspace_id, name")
    .eq("id", productId).maybeSingle();
  if (error) throw new DomainError("internal", "db_error", `Reading the product: ${error.message}`);
  if (!product) throw DomainError.notFound(`Product ${productId} not found`);
  return product as MonitoredProduct;
}

/** Runs the action for `s` (the product's workspace, a signed-in user) and returns its answer. */
export async function runMonitoringAction(
  s: WorkspaceScope,
  product: MonitoredProduct,
  { action, productId, monitoringSettings }: PriceMonitoringRequest,
) {
  const service = s.service;
  const ws = product.workspace_id;
  if (action === "get_status") return { success: true, ...await monitoringStatus(service, productId) };
  if (action === "start_monitoring") {
    const settings = monitoringSettings ?? { frequency: "daily" as const, enabled: true };
    const monitoring = await startMonitoring(service, {
      workspaceId: ws,
      productId,
      userId: s.userId!,
      ...settings,
    });
    const message = !monitoring.enabled
      ? `Monitoring of ${product.name} is saved but disabled`
      : monitoring.frequency === "on_demand"
      ? `Monitoring of ${product.name} is on demand: use check_now`
      : `Monitoring ${product.name} ${monitoring.frequency}`;
    return { success: true, message, monitoring };
  }
  if (action === "stop_monitoring") {
    const monitoring = await stopMonitoring(service, productId);
    const message = monitoring
      ? `Monitoring of ${product.name} stopped`
      : `${product.name} was not monitored`;
    return { success: true, message, monitoring };
  }
  const out = await runCheck(service, { workspaceId: ws, productId, userId: s.userId!, trigger: "manual" });
  const { jobId, ...results } = out;
  const message = `Checked ${out.sourcesChecked} source(s): ${out.pricesFound} price(s) found, ` +
    `${out.priceChanges} change(s)`;
  return { success: true, message, jobId, results };
}
