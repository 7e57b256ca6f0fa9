/**
 * One process per embedded data folder: PGlite corrupts its data directory when two processes open it.
 * The lock is a file beside the folder holding the owner's pid; a lock whose process is gone is stale and
 * taken over (a `kill -9` leaves one behind).
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";

export interface DataDirLock {
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `${dataDir} is in use by another process (pid ${pid}, probably another \`npm run dev\`). ` +
        `Stop it first, or point DATA_DIR at another folder.`,
    );
    this.name = "DataDirLockedError";
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  const path = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return {
        release: () => {
          if (ownerOf(path) === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = ownerOf(path);
      if (owner !== null && owner !== process.pid && isAlive(owner))
        throw new DataDirLockedError(dataDir, owner);
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

function ownerOf(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
