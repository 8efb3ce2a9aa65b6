/**
 * Answers 202 at once and leaves `?ms=` milliseconds of work to EdgeRuntime.waitUntil; the work
 * writes `?mark=` (a file path) when it finishes, so a test can tell whether it was ended.
 */
declare const EdgeRuntime: { waitUntil(p: Promise<unknown>): void };

export default {
  fetch: (req: Request) => {
    const q = new URL(req.url).searchParams;
    const ms = Number(q.get("ms") ?? "0");
    const mark = q.get("mark")!;
    EdgeRuntime.waitUntil(
      new Promise((r) => setTimeout(r, ms)).then(() => Deno.writeTextFile(mark, "finished")),
    );
    return Response.json({ accepted: true }, { status: 202 });
  },
};
