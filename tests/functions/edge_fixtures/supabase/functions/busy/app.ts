/** Keeps the CPU busy for `?ms=` milliseconds without awaiting anything, then answers. */
export default {
  fetch: (req: Request) => {
    const ms = Number(new URL(req.url).searchParams.get("ms") ?? "0");
    const end = performance.now() + ms;
    let spins = 0;
    while (performance.now() < end) spins++;
    return Response.json({ spins: spins > 0 });
  },
};
