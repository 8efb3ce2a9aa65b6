/**
 * The catalog of background agent types (GET background-agent-runner?catalog=1). Each is a real
 * job over the platform's own data: no canned output. background_agents.agent_type is checked
 * against these ids in SQL too (tests keep the two lists in step).
 */
import { z } from "zod";
import { DomainError } from "../errors.ts";
import type { AgentKind } from "./types.ts";
import { stalePriceDocuments } from "./kinds/stale_price_documents.ts";
import { quoteFollowUp } from "./kinds/quote_follow_up.ts";
import { duplicateScan } from "./kinds/duplicate_scan.ts";
import { catalogDescriptionWriter } from "./kinds/catalog_description_writer.ts";

export const CATALOG: readonly AgentKind[] = [
  stalePriceDocuments,
  quoteFollowUp,
  duplicateScan,
  catalogDescriptionWriter,
] as AgentKind[];

export function agentKind(id: string): AgentKind {
  const kind = CATALOG.find((k) => k.id === id);
  if (!kind) throw DomainError.invalid(`Unknown agent type "${id}"`, undefined, "unknown_agent_type");
  return kind;
}

/** The catalog as the API shows it: the input as JSON Schema. */
export function catalogView() {
  return CATALOG.map((k) => {
    const { $schema: _s, ...schema } = z.toJSONSchema(k.input, { io: "input" }) as Record<string, unknown>;
    return {
      id: k.id,
      name: k.name,
      description: k.description,
      input_schema: schema,
      delegated: k.delegated,
      cost: k.cost,
    };
  });
}

/** The agent's config overlaid with the run's input, validated by the type's schema (400s). */
export function parseInput(kind: AgentKind, config: Record<string, unknown>, input: Record<string, unknown>) {
  const r = kind.input.safeParse({ ...config, ...input });
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`);
    throw DomainError.invalid(
      `Invalid input for ${kind.id}: ${issues.join("; ")}`,
      { issues },
      "invalid_input",
    );
  }
  return r.data as Record<string, unknown>;
}
