/**
 * The storage part of the local platform: mounts /storage/v1 on the gateway, with bytes on disk
 * under `<dataDir>/storage/objects` when the platform persists, and in memory when it does not.
 */
import type { PlatformPart } from "../part.ts";
import { stripPrefix } from "../gateway.ts";
import { type ByteStore, DiskByteStore, MemoryByteStore, sweepOrphans } from "./bytes.ts";
import { createStorageApp } from "./app.ts";

export const storagePart: PlatformPart = {
  name: "storage",
  async start(p) {
    let bytes: ByteStore;
    if (p.config.dataDir === null) {
      bytes = new MemoryByteStore();
    } else {
      const disk = new DiskByteStore(`${p.config.dataDir}/storage/objects`);
      // Nothing serves yet, so bytes no row points at are leftovers of an interrupted write.
      await sweepOrphans(disk, async (keys) => {
        const r = await p.db.query<{ version: string }>(
          `select version from storage.objects where version = any($1::text[])`,
          [keys],
        );
        return new Set(r.rows.map((row) => row.version));
      });
      bytes = disk;
    }
    p.gateway.mount(
      "/storage/v1",
      stripPrefix(createStorageApp({ db: p.db, bytes, jwtSecret: p.config.jwtSecret })),
    );
  },
};
