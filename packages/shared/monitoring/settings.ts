/**
 * Monitoring settings and status of one product (start_monitoring, stop_monitoring, get_status),
 * written and read with the service client after the function has authorised the caller.
 *
 * start_monitoring upserts the product's row: frequency and enabled from monitoringSettings,
 * started_by = the caller (scheduled checks are billed to them), next_check_at = now for
 * hourly/daily/weekly (the first scheduled check runs at the scheduler's next pass, then every
 * interval), null for on_demand or disabled. stop_monitoring disables it and clears
 * next_check_at; stopping a product that is not monitored is not an error.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { DomainError } from "../errors.ts";
import type { Frequency } from "./schemas.ts";

export interface MonitoringView {
  id: string;
  productId: string;
  frequency: Frequency;
  enabled: boolean;
  lastCheckedAt: string | null;
  nextCheckAt: string | null;
  startedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

interface MonitoringRow {
  id: string;
  product_id: string;
  frequency: Frequency;
  enabled: boolean;
  last_checked_at: string | null;
  next_check_at: string | null;
  started_by: string | null;
  created_at: string;
  updated_at: string;
}

function view(r: MonitoringRow): MonitoringView {
  return {
    id: r.id,
    productId: r.product_id,
    frequency: r.frequency,
    enabled: r.enabled,
    lastCheckedAt: r.last_checked_at,
    nextCheckAt: r.next_check_at,
    startedBy: r.started_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const COLUMNS =
  "id, product_id, frequency, enabled, last_checked_at, next_check_at, started_by, created_at, updated_at";

export async function startMonitoring(
  service: SupabaseClient,
  p: { workspaceId: string; productId: string; userId: string; frequency: Frequency; enabled: boolean },
): Promise<MonitoringView> {
  const scheduled = p.enabled && p.frequency !== "on_demand";
  const { data, error } = await service.from("price_monitoring_products").upsert({
    workspace_id: p.workspaceId,
    product_id: p.productId,
    frequency: p.frequency,
    enabled: p.enabled,
    started_by: p.userId,
    next_check_at: scheduled ? new Date().toISOString() : null,
  }, { onConflict: "product_id" }).select(COLUMNS).single();
  if (error) throw DomainError.internal(`Saving the monitoring settings: ${error.message}`);
  return view(data as MonitoringRow);
}

export async function stopMonitoring(
  service: SupabaseClient,
  productId: string,
): Promise<MonitoringView | null> {
  const { data, error } = await service.from("price_monitoring_products")
    .update({ enabled: false, next_check_at: null }).eq("product_id", productId).select(COLUMNS)
    .maybeSingle();
  if (error) throw DomainError.internal(`Stopping monitoring: ${error.message}`);
  return data ? view(data as MonitoringRow) : null;
}

export interface MonitoringStatus {
  monitoring: MonitoringView | null;
  latestPrices: unknown[];
  recentJobs: unknown[];
  sources: unknown[];
}

export async function monitoringStatus(
  service: SupabaseClient,
  productId: string,
): Promise<MonitoringStatus> {
  const { data, error } = await service.rpc("price_monitoring_status", { p_product: productId });
  if (error) throw DomainError.internal(`Reading the monitoring status: ${error.message}`);
  return data as MonitoringStatus;
}
