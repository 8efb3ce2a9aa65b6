/**
 * Shared setup of the RAG retrieval tests: a team (owner, admin, member, viewer of one
 * workspace; an outsider owning another) with credits, and the labelled corpus of processed
 * documents (fixtures/rag.ts) seeded once per platform.
 */
import type { Platform } from "../../stack/platform.ts";
import { createTeam as makeTeam, type Team } from "../helpers/team.ts";
import { seedCorpus, type SeededCorpus } from "../../fixtures/rag.ts";

export { balance, grant, type Team } from "../helpers/team.ts";
export { gateway, ok } from "../ai/helpers.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

export interface World {
  t: Team;
  corpus: SeededCorpus;
}

const worlds = new WeakMap<Platform, Promise<World>>();

/** The team and the seeded corpus, created once per platform (module). */
export function world(p: Platform, prefix: string): Promise<World> {
  let w = worlds.get(p);
  if (!w) {
    w = (async () => {
      const t = await makeTeam(p, { prefix, credits: 100 });
      const corpus = await seedCorpus(p, {
        mainUser: t.owner.id,
        mainWs: t.ws,
        otherUser: t.outsider.id,
        otherWs: t.otherWs,
      });
      return { t, corpus };
    })();
    worlds.set(p, w);
  }
  return w;
}
