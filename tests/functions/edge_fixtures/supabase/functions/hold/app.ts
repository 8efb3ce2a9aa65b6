/** Answers after `?ms=` milliseconds: a function that holds its response. */
export default {
  fetch: async (req: Request) => {
    const ms = Number(new URL(req.url).searchParams.get("ms") ?? "0");
    await new Promise((r) => setTimeout(r, ms));
    return Response.json({ held: ms });
  },
};
