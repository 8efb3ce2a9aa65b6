/** Module memory on purpose: counts the requests this isolate has served. */
let served = 0;

export default {
  fetch: () => Response.json({ served: ++served }),
};
